"""Alphalone's per-colour weight sets: the file format, validation and the shipped defaults.

A weights file is JSON: ``{"black": {feature: weight, ...}, "white": {...}}`` with the ten
feature names of :data:`ALPHALONE_FEATURES` for each colour (the weights Black's player uses,
and the weights White's player uses; each scores positions from its own side). The report
normalises each weight vector "to unify their magnitude all to 1" before searching, so that its
early-stopping thresholds (0.5 and 0.3) mean the same for every weight set;
:meth:`AlphaloneWeights.vector` does that. The authors' code (``alphabeta.py``, ``normalize``)
divides by the sum of the absolute values (L1, :data:`NORMS` ``"l1"``, our default); an earlier
reading of ours divided by the Euclidean length (``"l2"``).

**Two feature sets.** ``"code"`` (the default) computes the ten features as the authors' code
does (``model.py``, ``features``), :func:`code_features`: marbles off (squared when White is to
move, a quirk of that code), marbles on the outer ring, the summed ``|x|+|y|+|z|`` of the
marbles over the marbles on the board, coherence = same-colour neighbours per marble (the code's
three-in-a-row bonus is 0), and divide-and-conquer ("break") = the colour's marble-to-opposing-
marble contacts per marble. ``"text"`` is our earlier reading of the report's text
(:func:`sumito.evaluation.features.alphalone_features`: coherence plus one per three-in-a-row,
break = opposing marbles touched per marble, marbles off never squared).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.bounds import MAX_WEIGHT
from sumito.errors import SumitoError
from sumito.evaluation.features import ALPHALONE_FEATURES, N_ALPHALONE, alphalone_features, raw_features
from sumito.fileio import atomic_write_text, check_weights, load_json, read_file_bounded, shown_path
from sumito.jit import njit

NORMS = ("l1", "l2")
#: the largest weights file read (a file of twenty numbers is under a kilobyte)
MAX_WEIGHTS_BYTES = 1024 * 1024
FEATURE_SETS = ("code", "text")


class WeightsError(SumitoError):
    """A weights file that cannot be read or does not hold the expected weights."""


# The published weights of the report's best agents (its Table 1): Agent 2 (step size 1e-3) as
# Black and Agent 3 (step size 1e-4) as White, after 100 iterations of TD learning with
# gamma = 0.2 on the mini board, as listed in the authors' repository (learnedWeights.py).
PAPER_BLACK = (-10.0, 12.0, -1.4221, 1.0907, -1.4156, 1.3895, 1.7941, -0.8928, 1.8500, -0.1500)
PAPER_WHITE = (11.6227, -9.4763, 1.3090, -0.1871, 2.0063, -0.0615, -0.0061, 1.8516, 0.5038, 2.7660)

# All eight weight sets of the report's four agents as the authors list them (learnedWeights.py:
# "eta = …, gamma = 0.2, black side / white side, 100 iteration"), rounded to four places:
# step size -> (Black's, White's). Agent 2's Black and agent 3's White are PAPER_BLACK and PAPER_WHITE.
PUBLISHED_AGENTS = {
    1e-2: (
        (-10.0, 12.0, 0.3032, -0.3127, -0.7971, 0.7579, 0.5772, -0.4092, 1.0612, -0.9388),
        (-4.6754, -9.9084, 1.5622, -2.8939, -2.8754, 1.1276, 3.9017, 0.5053, -1.5001, 2.2768),
    ),
    1e-3: (
        PAPER_BLACK,
        (4.0645, -9.6808, -2.0583, -0.4066, -5.5315, -1.8561, 7.8489, 1.4670, -3.0592, 0.1054),
    ),
    1e-4: (
        (-10.0, 12.0, -1.6237, 1.3227, -1.5042, 1.4744, 1.8482, -1.1167, 1.9349, -0.0651),
        PAPER_WHITE,
    ),
    1e-5: (
        (-10.0, 12.0, -1.6427, 1.3522, -1.5149, 1.4830, 1.8448, -1.1519, 1.9474, -0.0526),
        (12.0, -9.8426, 2.0244, -0.6707, 2.2481, -0.5296, -0.5944, 2.1478, 0.1894, 2.2353),
    ),
}

# The fixed weights the authors' search orders moves by (alphabeta.py, getDefaultWeights), from
# Black's side whichever colour searches; rounded to four places (order is all they decide).
CODE_ORDERING = (-10.0, 10.0, -1.0011, 0.9984, 0.9998, -1.0002, 1.0001, -1.0, -1.0, 1.0)


def normalized(w: tuple[float, ...] | np.ndarray, norm: str = "l1") -> np.ndarray:
    """``w`` scaled to magnitude 1: by the sum of absolute values (``"l1"``, the authors' code)
    or by the Euclidean length (``"l2"``)."""
    if norm not in NORMS:
        raise WeightsError(f"norm must be one of {', '.join(NORMS)}, not {norm!r}")
    a = np.array(w, dtype=np.float64)
    size = float(np.abs(a).sum()) if norm == "l1" else float(np.linalg.norm(a))
    return a / size


@dataclass(frozen=True)
class AlphaloneWeights:
    black: tuple[float, ...]
    white: tuple[float, ...]

    def __post_init__(self) -> None:
        for color, w in (("black", self.black), ("white", self.white)):
            if len(w) != N_ALPHALONE:
                raise WeightsError(f"{color} weights need {N_ALPHALONE} numbers, not {len(w)}")
            check_weights({f"the {color} weights": w}, None, WeightsError)  # finite, within MAX_WEIGHT
            if not any(w):
                raise WeightsError(f"{color} weights are all zero")

    def vector(self, norm: str = "l1") -> np.ndarray:
        """Black's then White's weights, each scaled to magnitude 1 (the report's normalisation;
        ``norm``: ``"l1"``, the authors' code, or ``"l2"``)."""
        return np.concatenate([normalized(self.black, norm), normalized(self.white, norm)])

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
            data = load_json(text, source, "the weights file")
        except ValueError as exc:
            raise WeightsError(str(exc)) from None
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
                    raise WeightsError(f"{source}: {color} weight {f!r} must be a number, not {_short(v)}")
                if abs(v) > MAX_WEIGHT:  # compared as it is: float() of a 400-digit int raises OverflowError
                    raise WeightsError(f"{source}: {color} weight {f!r} is {_short(v)}; a weight may be at most "
                                       f"{MAX_WEIGHT:g} in size")
                values.append(float(v))
            sets.append(tuple(values))
        try:
            return cls(*sets)
        except WeightsError as exc:
            raise WeightsError(f"{source}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> AlphaloneWeights:
        """Read a weights file: a regular file of at most :data:`MAX_WEIGHTS_BYTES` (a FIFO, ``/dev/zero`` or a
        folder is refused at once, never read)."""
        try:
            data = read_file_bounded(path, MAX_WEIGHTS_BYTES, "weights file")
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise WeightsError(f"{shown_path(path)}: not a text file (a weights file is JSON)") from None
        except ValueError as exc:
            raise WeightsError(f"cannot read weights file {exc}") from None
        return cls.from_json(text, shown_path(path))


def _short(value: object) -> str:
    """``value`` as an error message quotes it: at most about 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def default_weights() -> AlphaloneWeights:
    return AlphaloneWeights(PAPER_BLACK, PAPER_WHITE)


# --------------------------------------------------------------------------- the features
@njit(cache=True)
def code_features(board, cells, ring, offsets, edge_ring, lost_black, lost_white, white_to_move, out):
    """The ten features as the authors' code computes them (see the module's notes), into ``out``."""
    n0 = n1 = edge0 = edge1 = 0
    dist0 = dist1 = adj0 = adj1 = contact0 = contact1 = 0
    for i in range(cells.shape[0]):
        c = cells[i]
        v = board[c]
        if v != 1 and v != 2:
            continue
        opp = 3 - v
        same = 0
        contact = 0
        for d in range(6):
            x = board[c + offsets[d]]
            if x == v:
                same += 1
            elif x == opp:
                contact += 1
        if v == 1:
            n0 += 1
            dist0 += ring[c]
            adj0 += same
            contact0 += contact
            if ring[c] == edge_ring:
                edge0 += 1
        else:
            n1 += 1
            dist1 += ring[c]
            adj1 += same
            contact1 += contact
            if ring[c] == edge_ring:
                edge1 += 1
    nb = max(n0, 1)
    nw = max(n1, 1)
    if white_to_move:
        out[0] = lost_black * lost_black
        out[1] = lost_white * lost_white
    else:
        out[0] = lost_black
        out[1] = lost_white
    out[2] = edge0
    out[3] = edge1
    out[4] = 2.0 * dist0 / nb  # |x|+|y|+|z| is twice the hex distance
    out[5] = 2.0 * dist1 / nw
    out[6] = adj0 / nb
    out[7] = adj1 / nw
    out[8] = contact0 / nb
    out[9] = contact1 / nw


@njit(cache=True)
def feature_row(board, cells, ring, offsets, edge_ring, lost_black, lost_white, to_move, code, raw, out):
    """The ten features of the position (``to_move`` the side to move), ``code``: the authors'
    code's, else the text reading's; into ``out`` (float64[10]); ``raw`` a work array."""
    if code:
        code_features(board, cells, ring, offsets, edge_ring, lost_black, lost_white, to_move == 2, out)
    else:
        raw_features(board, cells, ring, offsets, edge_ring, raw, True)
        alphalone_features(raw, lost_black, lost_white, out)


@njit(cache=True)
def score(board, agent, to_move, lost_black, lost_white, cells, ring, offsets, edge_ring, params, code, raw, out):
    """``agent``'s weights (Black's: params[:10], White's: params[10:]) times the features."""
    feature_row(board, cells, ring, offsets, edge_ring, lost_black, lost_white, to_move, code, raw, out)
    base = (agent - 1) * N_ALPHALONE
    total = 0.0
    for j in range(N_ALPHALONE):
        total += params[base + j] * out[j]
    return total


def feature_vector(position, features: str = "code") -> np.ndarray:
    """The ten features of ``position`` (a :class:`~sumito.games.abalone.Position`) under ``features``."""
    if features not in FEATURE_SETS:
        raise WeightsError(f"features must be one of {', '.join(FEATURE_SETS)}, not {features!r}")
    geo = position.geometry
    raw = np.zeros((2, 6), dtype=np.float64)
    out = np.zeros(N_ALPHALONE, dtype=np.float64)
    feature_row(position.grid, geo.cells, geo.ring, geo.offsets, geo.side - 1, position.lost[0], position.lost[1],
                position.side_to_move, features == "code", raw, out)
    return out
