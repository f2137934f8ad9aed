"""A self-taught NNUE: generations of self-play, training and gating, from the rules alone.

Generation 0 knows the rules (the search's legal moves and its push-off quiescence) and the marble count:
its network is the marble difference and nothing else (:func:`generation_zero`: the output weights are
zero, so the accumulator's random first layer does not show). Each *attempt* then

1. plays ``games`` self-play games of ``engine:depth=D,nnue=CURRENT,threads=1`` (:func:`sumito.learn.nnue.generate`:
   an opening of the board's shipped suite (:func:`sumito.arena.openings.default_suite_path`: the standard
   board's, or the mini board's with ``side=3``) and a few uniformly random quiet plies first, so that no two
   games are alike;
   every position kept with the search's score and, once the game ends, its result), in chunks on the
   executor (processes or Ray);
2. trains a candidate on the last ``window`` attempts' data, warm-started from the current network
   (:func:`sumito.models.nnue_fit.fit` with ``init=``: targets from the search scores and the results, as
   ``nnue train`` fits them, or TD-Leaf(λ)'s λ-returns of the searches' values, ``targets="tdleaf"``;
   no linear base, no PSQT from the hand-set terms);
3. gates it: ``sumito sprt`` of the candidate against the current network at the same depth
   (:func:`sumito.arena.sprt.play_sprt`, from the same suite), H0 ``elo0`` against H1 ``elo1``; the
   candidate becomes the next generation only when H1 is accepted (with ``gate_games=0``, no gate: every
   candidate becomes the next generation).

Nothing hand-set enters the line: the inputs are the board's (cell, colour) planes, the marble counts and
the side to move (the NNUE's own inputs); no linear base evaluation, no PSQT initialised from the hand-set
terms, no hand-made features, no expert games. The search's machinery (move ordering, quiescence on pushes,
pruning, the threat search) stays: it is search, not knowledge of what a good position is.

Every step resumes after a kill: the data chunks (``attempt-NNNN/data``), the candidate (written atomically
once trained), the gate's journal of finished games (``attempt-NNNN/gate.jsonl``), and ``state.json``
(written atomically after each attempt) with the accepted networks ``net-NNN.npz`` beside it. The folder is
known by its resolved path (:meth:`pathlib.Path.resolve`): the players' specs, and so the gate journal's keys,
are the same however the folder is named (relative or absolute, through a link, with ``./`` or a trailing
slash), and a resumed gate replays none of its finished games. A resumed run refuses another network size,
board or seed (a one-line error naming the setting and both values); the settings of the attempts to come
(:data:`CHANGEABLE`) may change, and the attempt in progress then starts again from the first step the change
concerns (:data:`PLAY_SETTINGS`: its self-play; :data:`TRAIN_SETTINGS`: its training; the gate's bounds and
length: its gate goes on from its journal, whose games they do not change).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from sumito.arena.journal import GameJournal
from sumito.arena.openings import default_suite_path, load_openings
from sumito.arena.sprt import SprtBounds, play_sprt
from sumito.bounds import MAX_JSON_FILE_BYTES
from sumito.errors import SumitoError
from sumito.evaluation.nnue import NNUE, load_network, n_features
from sumito.fileio import (
    atomic_write_bytes,
    atomic_write_text,
    load_json,
    read_file_bounded,
    read_json_file,
    refuse_changed,
    shown_path,
)
from sumito.learn.nnue import generate, load_samples
from sumito.learn.settings import LoopSettings
from sumito.models.nnue_fit import FitSettings, fit, normal

STATE_FORMAT = "sumito-selftaught"


class SelfTaughtError(SumitoError):
    """A self-taught run's folder or settings are not usable (one line)."""


@dataclass
class Attempt:
    number: int
    generation: int  # the network it started from
    games: int
    positions: int
    train_seconds: float
    validation_loss: float
    gate: str  # the SPRT's summary
    accepted: bool
    seconds: float  # wall time of the whole attempt (this run's part of it, after a resume)


#: the settings a resumed run may change (from its next attempt on; state.json records when): they shape
#: the attempts to come, not the networks made so far. The networks' sizes, the board and the seed may not.
CHANGEABLE = ("games", "depth", "window", "epochs", "lam", "targets", "lr", "gate_games", "elo0", "elo1",
              "random_plies", "max_plies", "chunk")
#: the settings an attempt's self-play depends on (and so all after it), and those its training depends on (and
#: so its gate): a change to one starts the attempt in progress again from that step
PLAY_SETTINGS = ("games", "depth", "random_plies", "max_plies", "chunk")
TRAIN_SETTINGS = ("window", "epochs", "lam", "targets", "lr")


@dataclass
class RunState:
    settings: LoopSettings
    generation: int = 0  # the newest accepted network: net-{generation:03d}.npz
    attempts: list[Attempt] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)  # {"from_attempt": n, setting: new value, ...}

    def to_json(self) -> str:
        return json.dumps({"format": STATE_FORMAT, "settings": asdict(self.settings), "generation": self.generation,
                           "attempts": [asdict(a) for a in self.attempts], "changes": self.changes},
                          indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str) -> RunState:
        try:
            data = load_json(text, source, "the run's state")  # its nesting bounded
        except ValueError as exc:
            raise SelfTaughtError(str(exc)) from None
        try:
            if data.get("format") != STATE_FORMAT:
                raise ValueError("not a self-taught run's state")
            return cls(LoopSettings(**data["settings"]), int(data["generation"]),
                       [Attempt(**a) for a in data["attempts"]], list(data.get("changes", [])))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise SelfTaughtError(f"{source}: {exc}") from None


def generation_zero(side: int = 5, hidden: int = 32, hidden2: int = 16, seed: int = 1) -> NNUE:
    """The network that knows the marble count alone: one marble is worth one (1000 engine points); the
    first layers are random (so that training has something to move), the output weights zero (so that
    nothing but the marbles shows)."""
    rng = np.random.default_rng(seed)
    nf = n_features(side)
    return NNUE(normal(rng, 0.5 / np.sqrt(14), (nf, hidden)), np.full(hidden, 0.5),
                normal(rng, 1.0 / np.sqrt(2 * hidden), (hidden2, 2 * hidden)), np.full(hidden2, 0.5),
                np.zeros(hidden2 if hidden2 else 2 * hidden), 0.0, 1.0, psqt=np.zeros(nf), side=side,
                metadata={"generation": 0, "knows": "the rules and the marble count"})


def net_path(folder: Path, generation: int) -> Path:
    return folder / f"net-{generation:03d}.npz"


def player(folder: Path, generation: int, depth: int) -> str:
    return f"engine:depth={depth},nnue={net_path(folder, generation)},threads=1"


def _write_state(folder: Path, state: RunState) -> None:
    atomic_write_bytes(folder / "state.json", state.to_json().encode())


def _restart_attempt(folder: Path, number: int, changed: list[str]) -> list[str]:
    """Remove what attempt ``number`` (in progress) made that depends on the ``changed`` settings: it is made
    again with the new ones. Returns the names removed."""
    where = folder / f"attempt-{number:04d}"
    names = ["candidate.npz", "train.json", "gate.jsonl"]
    if any(k in PLAY_SETTINGS for k in changed):
        names.insert(0, "data")
    elif not any(k in TRAIN_SETTINGS for k in changed):
        return []  # the gate's bounds and length: its games stand
    removed = []
    for name in names:
        target = where / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        else:
            continue
        removed.append(name)
    return removed


def _check_bounds(settings: LoopSettings) -> None:
    if settings.elo1 <= settings.elo0:
        raise SelfTaughtError(f"--elo1 ({settings.elo1:g}) must be above --elo0 ({settings.elo0:g})")


def open_run(folder: str | Path, settings: LoopSettings | None, only: set[str] | None = None,
             log: Callable[[str], None] | None = None) -> RunState:
    """The run in ``folder``: resumed from its state.json, or started (generation 0 written) when there is
    none. ``settings`` must match a resumed run's (``None``: take the run's; ``only``: compare those alone),
    but for those of the attempts to come (:data:`CHANGEABLE`): a change to one of them is recorded, and the
    attempt in progress starts again from the step it concerns (``log`` says what was removed)."""
    shown, folder = Path(folder), Path(folder).resolve()
    path = folder / "state.json"
    if path.exists():
        try:  # a regular file of bounded size, then bounded in nesting (from_json)
            text = read_file_bounded(path, MAX_JSON_FILE_BYTES, "run state").decode("utf-8", errors="replace")
        except ValueError as exc:
            raise SelfTaughtError(str(exc)) from None
        state = RunState.from_json(text, str(shown / "state.json"))
        theirs = asdict(state.settings)
        asked = {k: v for k, v in (asdict(settings) if settings is not None else {}).items()
                 if only is None or k in only}
        refuse_changed(shown, theirs, {k: v for k, v in asked.items() if k not in CHANGEABLE}, SelfTaughtError,
                       advice="a resumed run keeps its network sizes, board and seed: resume it without that "
                       "setting, or use a new --out folder")
        changed = [k for k, v in asked.items() if theirs[k] != v]
        _check_bounds(replace(state.settings, **{k: asked[k] for k in changed}))  # the bounds it will play under
        if changed:
            number = len(state.attempts) + 1
            removed = _restart_attempt(folder, number, changed)
            if removed and log is not None:
                log(f"attempt {number} starts again with the new {', '.join(changed)}: removed "
                    f"{', '.join(removed)} of attempt-{number:04d}")
            state.changes.append({"from_attempt": number, **{k: asked[k] for k in changed}})
            state.settings = replace(state.settings, **{k: asked[k] for k in changed})
            _write_state(folder, state)
        if not net_path(folder, state.generation).exists():
            raise SelfTaughtError(f"{shown / 'state.json'}: its network {net_path(folder, state.generation).name} "
                                  "is missing")
        return state
    settings = settings or LoopSettings()
    _check_bounds(settings)
    folder.mkdir(parents=True, exist_ok=True)
    zero = generation_zero(settings.side, settings.hidden, settings.hidden2, settings.seed)
    zero.save(net_path(folder, 0))
    state = RunState(settings)
    _write_state(folder, state)
    return state


def _training_report(path: Path) -> tuple[int, float, float]:
    """An attempt's train.json: positions, seconds and validation loss (none there: 0, 0 and nan); a file of
    other shapes or types is a one-line :class:`SelfTaughtError` naming it."""
    if not path.exists():
        return 0, 0.0, float("nan")
    try:
        found = read_json_file(path, "training report")
    except ValueError as exc:
        raise SelfTaughtError(str(exc)) from None
    wanted = {"positions": int, "seconds": (int, float), "validation_loss": (int, float)}
    if not isinstance(found, dict) or any(
            not isinstance(found.get(key), kind) or isinstance(found.get(key), bool) for key, kind in wanted.items()):
        raise SelfTaughtError(f"{shown_path(path)}: not a training report (positions, seconds and validation_loss, "
                              "numbers); remove it and candidate.npz beside it to train the candidate again")
    return found["positions"], float(found["seconds"]), float(found["validation_loss"])


def run_attempt(folder: str | Path, state: RunState, executor, log: Callable[[str], None] = print) -> Attempt:
    """One attempt (play, train, gate) from the state's current network; the state is written after it."""
    folder = Path(folder).resolve()  # the players' specs, and so the gate journal's keys, name it so
    s = state.settings
    number = len(state.attempts) + 1
    where = folder / f"attempt-{number:04d}"
    start = time.perf_counter()
    current = player(folder, state.generation, s.depth)
    openings = load_openings(default_suite_path(s.side))
    log(f"attempt {number}: generation {state.generation} plays {s.games} games at depth {s.depth}")
    generate(where / "data", s.games, player=current, seed=s.seed * 100_003 + number, chunk=s.chunk,
             random_plies=s.random_plies, max_plies=s.max_plies, openings=openings, executor=executor,
             progress=lambda done, total: log(f"attempt {number}: self-play chunk {done}/{total}"))
    candidate_path = where / "candidate.npz"
    report_path = where / "train.json"
    if not candidate_path.exists():
        folders = [folder / f"attempt-{k:04d}" / "data" for k in range(max(1, number - s.window + 1), number + 1)]
        samples = load_samples([str(f) for f in folders if f.exists()])
        log(f"attempt {number}: training on {len(samples)} positions of {len(folders)} attempt(s)")
        settings = FitSettings(hidden=s.hidden, hidden2=s.hidden2, epochs=s.epochs, lam=s.lam, lr=s.lr,
                               targets=s.targets, seed=s.seed + number, base=False)
        net, report = fit(samples, settings, init=load_network(net_path(folder, state.generation)),
                          log=lambda line: log(f"attempt {number}: {line}"))
        net.metadata.update(generation_from=state.generation, attempt=number)
        atomic_write_text(report_path, json.dumps({"positions": report.samples, "validation_loss": report.val_loss,
                                                   "seconds": report.seconds}) + "\n")
        net.save(candidate_path)
    positions, train_seconds, validation_loss = _training_report(report_path)
    if s.gate_games == 0:  # no gate: every candidate is the next generation, as the zero learner's networks are
        accepted, summary = True, "no gate"
    else:
        log(f"attempt {number}: gate, the candidate against generation {state.generation} at depth {s.depth}")
        gate = play_sprt(f"engine:depth={s.depth},nnue={candidate_path},threads=1", current,
                         SprtBounds(s.elo0, s.elo1), max_games=s.gate_games, executor=executor, seed=s.seed + number,
                         openings=openings,
                         journal=GameJournal(where / "gate.jsonl"), label=f"attempt {number} gate", every=10)
        accepted, summary = gate.decision == "H1", gate.summary()
    if accepted:
        shutil.copyfile(candidate_path, net_path(folder, state.generation + 1))
    attempt = Attempt(number, state.generation, s.games, positions, train_seconds, validation_loss,
                      summary, accepted, round(time.perf_counter() - start, 1))
    state.attempts.append(attempt)
    if accepted:
        state.generation += 1
    _write_state(folder, state)
    log(f"attempt {number}: {'accepted: generation ' + str(state.generation) if accepted else 'rejected'}; "
        f"{summary}")
    return attempt


def run(folder: str | Path, generations: int, settings: LoopSettings | None, executor, max_attempts: int = 1000,
        log: Callable[[str], None] | None = None) -> RunState:
    """Attempts until ``generations`` networks after generation 0 are accepted (or ``max_attempts`` in
    all); resumes where ``folder`` stands."""
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    state = open_run(folder, settings, log=log)
    while state.generation < generations and len(state.attempts) < max_attempts:
        run_attempt(folder, state, executor, log)
    return state
