"""Alphalone's per-colour weight sets: the file format, validation and the shipped defaults.

A weights file is JSON: ``{"black": {feature: weight, ...}, "white": {...}}`` with the ten
feature names of :data:`ALPHALONE_FEATURES` for each colour (the weights Black's player uses,
and the weights White's player uses; each scores positions from its own side). The report
normalises each weight vector to length 1 before searching, so that its early-stopping
thresholds (0.5 and 0.3) mean the same for every weight set; :meth:`AlphaloneWeights.vector`
does that.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.engine.errors import SumitoError
from sumito.evaluation.features import ALPHALONE_FEATURES, N_ALPHALONE
from sumito.fileio import atomic_write_text


class WeightsError(SumitoError):
    """A weights file that cannot be read or does not hold the expected weights."""


# The published weights of the report's best agents (its Table 1): Agent 2 (step size 1e-3) as
# Black and Agent 3 (step size 1e-4) as White, after 100 iterations of TD learning with
# gamma = 0.2 on the mini board, as listed in the authors' repository (learnedWeights.py).
PAPER_BLACK = (-10.0, 12.0, -1.4221, 1.0907, -1.4156, 1.3895, 1.7941, -0.8928, 1.8500, -0.1500)
PAPER_WHITE = (11.6227, -9.4763, 1.3090, -0.1871, 2.0063, -0.0615, -0.0061, 1.8516, 0.5038, 2.7660)


@dataclass(frozen=True)
class AlphaloneWeights:
    black: tuple[float, ...]
    white: tuple[float, ...]

    def __post_init__(self) -> None:
        for color, w in (("black", self.black), ("white", self.white)):
            if len(w) != N_ALPHALONE:
                raise WeightsError(f"{color} weights need {N_ALPHALONE} numbers, not {len(w)}")
            if not all(math.isfinite(x) for x in w):
                raise WeightsError(f"{color} weights must be finite numbers")
            if not any(w):
                raise WeightsError(f"{color} weights are all zero")

    def vector(self) -> np.ndarray:
        """Black's then White's weights, each scaled to length 1 (the report's normalisation)."""
        parts = []
        for w in (self.black, self.white):
            a = np.array(w, dtype=np.float64)
            parts.append(a / np.linalg.norm(a))
        return np.concatenate(parts)

    def to_json(self) -> str:
        data = {
            color: dict(zip(ALPHALONE_FEATURES, w)) for color, w in (("black", self.black), ("white", self.white))
        }
        return json.dumps(data, indent=2) + "\n"

    def save(self, path: str | Path) -> None:
        atomic_write_text(path, self.to_json())

    @classmethod
    def from_json(cls, text: str, source: str = "weights") -> AlphaloneWeights:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise WeightsError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(data, dict):
            raise WeightsError(f"{source}: expected an object with 'black' and 'white' weights")
        sets = []
        for color in ("black", "white"):
            if color not in data:
                raise WeightsError(f"{source}: no {color!r} weights")
            entry = data[color]
            if not isinstance(entry, dict):
                raise WeightsError(f"{source}: {color!r} must map feature names to numbers")
            unknown = sorted(set(entry) - set(ALPHALONE_FEATURES))
            if unknown:
                raise WeightsError(
                    f"{source}: unknown {color} feature {unknown[0]!r}; features: {', '.join(ALPHALONE_FEATURES)}"
                )
            missing = [f for f in ALPHALONE_FEATURES if f not in entry]
            if missing:
                raise WeightsError(f"{source}: {color} weights lack {', '.join(missing)}")
            values = []
            for f in ALPHALONE_FEATURES:
                v = entry[f]
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise WeightsError(f"{source}: {color} weight {f!r} must be a number, not {v!r}")
                values.append(float(v))
            sets.append(tuple(values))
        try:
            return cls(*sets)
        except WeightsError as exc:
            raise WeightsError(f"{source}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> AlphaloneWeights:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise WeightsError(f"cannot read weights file {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise WeightsError(f"{path}: not a text file (a weights file is JSON)") from None
        return cls.from_json(text, str(path))


def default_weights() -> AlphaloneWeights:
    return AlphaloneWeights(PAPER_BLACK, PAPER_WHITE)
