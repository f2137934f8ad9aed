"""Wiering's (2010) small modular architecture for backgammon: one value network per position class,
trained by his offline minimax TD(λ) from self-play, from games against an opponent, or from watching an
expert play itself.

**Position classes** (:func:`position_class`, the paper's section 4.1):

* ``ENDGAME`` (0) — every checker of both sides is in its owner's home board (inner board) or borne off,
  and none is on the bar;
* ``RACE`` (1) — not an endgame, but there is no contact any more: every checker of one side has passed
  every checker of the other (a checker on the bar counts as farthest back), so nothing can hit or be hit
  again (the same test as :func:`sumito.players.backgammon.pubeval.is_race`);
* ``OTHER`` (2) — everything else (contact positions).

Both tests are symmetric in the two sides, so the class of a board does not depend on whose view it is
given in; it is applied to **afterstates as generated** (the mover's view, not swapped). Within one game the
class can only go OTHER → RACE → ENDGAME (contact never comes back, a checker never leaves its home
board), so the afterstates of a game fall into at most three runs of one class each.

**Networks.** :class:`ModularValue` holds three :class:`~sumito.models.network.ValueNetwork`\\ s with sigmoid
hidden units and linear outputs, 20 hidden units for the endgame, 20 for the race and 40 for the other
positions (the paper's small architecture). ``encoding`` picks their inputs: ``"tesauro198"`` (TD-Gammon's
198 raw inputs for every module, :func:`~sumito.models.backgammon.learning.encode_afterstates`) or
``"wiering"`` (the paper's per-module input sets of 68 / 277 / 393 inputs,
:mod:`sumito.models.backgammon.features`). ``outputs``:

* 1 — the expected result for the side that just moved: ±1 (or ±1/2/3 points with ``points=True``);
* 7 — the paper's seven outputs: ``[0]`` the expected points (−3..3), ``[1:4]`` the probabilities of winning
  1, 2, 3 points, ``[4:7]`` of losing 1, 2, 3 points. As in the paper, a position's value is the average of
  the single output and the points the six outcome outputs predict, ``(o_0 + Σ_k points_k o_k) / 2``; each
  output learns only from its own values at the next positions.

A value is always from the view of the side that just moved (the afterstate's mover).

**The same numbers on every CPU.** Everything a training run computes with is bit-identical on any x86-64
CPU, BLAS and libm (:mod:`sumito.nn`): the networks' outputs come from fixed-order compiled loops
(:meth:`ValueNetwork.outputs`), the expected points of the outcome outputs are added in a fixed order
(:func:`expected_points`, not BLAS's ``@``), and so are pubeval's scores in the test matches.

**Training** (:class:`ModularTrainer`, the paper's section 3.3): offline TD(λ) with the minimax rule. A game
is the sequence of afterstates ``a_0, a_1, …, a_T`` of both sides in turn (``a_T`` ends it). Each ``a_t``'s
value is from its mover's view, so the next one's is turned round (:func:`flip_outputs`: the single output
negated, winning and losing outcomes exchanged) and, γ = 1 and no intermediate rewards::

    G_{T-1} = flip(outcome of a_T)                         (the result, from a_{T-1}'s mover's view)
    G_t     = flip((1 − λ) V(a_{t+1}) + λ G_{t+1})          t < T − 1

At the game's end every ``a_t`` (t < T) is moved towards ``G_t`` by one backpropagation step of its class's
network, in order (:func:`~sumito.models.td.fit_outputs`), α = 0.01 by default (the paper's; it uses
"extended backpropagation", we use plain backpropagation). ``V`` are the model's values, which equal the
ones it played by since the weights change only after the game, or (``targets="expert"``) the expert's
evaluations of the same afterstates — the paper's "learning from the expert's evaluation function".
Because all of a game's afterstates are learned from, whoever chose them, a learner that plays an expert
learns from the expert's moves too ("learning from the good positions of its opponent", which the paper
credits for learning against a stronger expert), and an observer learns from both sides of the expert's
games. Targets cross modules freely: a contact position's return includes the race values after it. A game
still going after :data:`MAX_PLIES` plies is cut there and learned from with the value of its last afterstate
in place of the result (early networks can play holding games that go on for thousands of plies).

**Checkpoints.** Updates happen only between games, so a trainer's whole state is its networks, its
random generator and its counters: :meth:`ModularTrainer.save_checkpoint` writes them atomically and
:meth:`ModularTrainer.load_checkpoint` resumes a run bit for bit (see :mod:`sumito.learn.backgammon.run`).

Not provided: doubling-cube play, the paper's nine-network large architecture, extended backpropagation.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sumito.errors import SumitoError
from sumito.fileio import atomic_write_bytes, load_json, read_file_bounded, read_npz_arrays, shown_path
from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import game_result, game_results, opening_roll, roll_dice
from sumito.games.backgammon.kernels import generate_plays, rearmost_checkers
from sumito.jit import njit
from sumito.models.backgammon import features
from sumito.models.backgammon.learning import ENCODING as TESAURO
from sumito.models.backgammon.learning import N_INPUTS as TESAURO_INPUTS
from sumito.models.backgammon.learning import encode_afterstates
from sumito.models.network import MAX_NETWORK_BYTES, NetworkError, ValueNetwork
from sumito.models.td import fit_outputs
from sumito.nn import matvec

ENDGAME, RACE, OTHER = 0, 1, 2
CLASS_NAMES = ("endgame", "race", "other")
HIDDEN = (20, 20, 40)  # the paper's small architecture, hidden units per module
ALPHA = 0.01
LAMBDA = 0.6
#: inputs per module (endgame, race, other) of each encoding
ENCODINGS: dict[str, tuple[int, int, int]] = {
    TESAURO: (TESAURO_INPUTS,) * 3,
    features.ENCODING: tuple(features.N_INPUTS_BY_CLASS),  # type: ignore[dict-item]
}
OUTPUTS = (1, 7)
#: the points of outcome outputs 1..6 (win 1, 2, 3; lose 1, 2, 3), from the afterstate's mover's view
OUTCOME_POINTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])
FORMAT = "sumito-backgammon-modular"
FORMAT_VERSION = 2
CHECKPOINT_FORMAT = "sumito-backgammon-trainer"
CHECKPOINT_VERSION = 1
#: a training game is cut after this many plies and learned from with the value where it stopped standing in
#: for the result: early networks play holding games where both sides keep hitting, which can go on for
#: thousands of plies (Tesauro saw the same in TD-Gammon's first games), far past any real game's length
MAX_PLIES = 500

#: A move chooser: ``(board before the move, afterstates of the roll) -> row index``.
Chooser = Callable[[np.ndarray, np.ndarray], int]


@njit(cache=True)
def position_class(board: np.ndarray) -> int:
    """0 endgame, 1 race, 2 other, of one 28-slot board (either side's view: the tests are symmetric)."""
    mover_back, opp_back = rearmost_checkers(board)
    if mover_back <= 6 and opp_back >= 19:
        return ENDGAME
    if mover_back < opp_back:
        return RACE
    return OTHER


@njit(cache=True)
def position_classes(boards: np.ndarray) -> np.ndarray:
    """:func:`position_class` of each row of ``boards`` ([n, 28]), as int8."""
    out = np.empty(boards.shape[0], dtype=np.int8)
    for r in range(boards.shape[0]):
        out[r] = position_class(boards[r])
    return out


def expected_points(outcomes: np.ndarray) -> np.ndarray:
    """``Σ_k OUTCOME_POINTS[k] · outcomes[:, k]`` of ``[n, 6]`` outcome probabilities (outputs 1..6), added in
    ``k``'s order: the same bits on every CPU (``outcomes @ OUTCOME_POINTS`` is BLAS's, whose order depends on
    the kernel OpenBLAS picks for the CPU)."""
    return matvec(np.ascontiguousarray(outcomes, dtype=np.float64), OUTCOME_POINTS)


def flip_outputs(values: np.ndarray) -> np.ndarray:
    """Output rows (``[..., 1]`` or ``[..., 7]``) seen by the other side: the single output negated, the six
    outcome probabilities' winning and losing halves exchanged."""
    out = np.empty_like(values)
    out[..., 0] = -values[..., 0]
    if values.shape[-1] == 7:
        out[..., 1:4] = values[..., 4:7]
        out[..., 4:7] = values[..., 1:4]
    return out


def outcome_outputs(points: int, n_outputs: int, scale_points: bool = True) -> np.ndarray:
    """The target row of a finished game for a side that scored ``points`` (±1/2/3): the single output is
    the points (or their sign with ``scale_points=False`` and one output), the outcome outputs one-hot."""
    row = np.zeros(n_outputs)
    row[0] = points if (scale_points or n_outputs == 7) else np.sign(points)
    if n_outputs == 7:
        row[points if points > 0 else 3 - points] = 1.0
    return row


def expert_outputs(probabilities: np.ndarray, n_outputs: int, points: bool) -> np.ndarray:
    """Turn gnubg-style evaluations of **swapped** afterstates (``[n, 5]``: the opponent on roll's win,
    win-gammon, win-backgammon, lose-gammon, lose-backgammon, cumulative) into output rows from the view of
    the afterstates' mover (see :func:`~sumito.players.backgammon.gnubg_expert.GnubgExpert.evaluate`)."""
    p = np.asarray(probabilities, dtype=np.float64).reshape(-1, 5)
    win, wg, wbg, lg, lbg = p.T
    rolled = np.stack([np.zeros_like(win), win - wg, wg - wbg, wbg, 1.0 - win - lg, lg - lbg, lbg], axis=1)
    rolled[:, 0] = expected_points(rolled[:, 1:])  # the roller's cubeless equity
    mover = flip_outputs(rolled)
    if n_outputs == 7:
        return mover
    if points:
        return mover[:, :1]
    return (1.0 - 2.0 * win)[:, None]  # 2·P(mover wins) − 1


class ModularValue:
    """Three linear-output value networks, one per position class (module notes): ``encoding``
    ``"tesauro198"`` or ``"wiering"``, ``outputs`` 1 or 7, ``hidden`` units per module."""

    def __init__(
        self,
        rng: np.random.Generator | int,
        *,
        hidden: tuple[int, int, int] = HIDDEN,
        encoding: str = TESAURO,
        outputs: int = 1,
        networks: list[ValueNetwork] | None = None,
    ) -> None:
        if encoding not in ENCODINGS:
            raise NetworkError(f"unknown backgammon encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
        if outputs not in OUTPUTS:
            raise NetworkError(f"a modular network has 1 or 7 outputs, not {outputs!r}")
        inputs = ENCODINGS[encoding]
        if networks is None:
            if len(hidden) != 3 or any(int(h) < 1 for h in hidden):
                raise NetworkError(f"hidden is three positive unit counts (endgame, race, other), not {hidden!r}")
            gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng))
            networks = [
                ValueNetwork(n, int(h), gen, n_outputs=outputs, output="linear",
                             metadata={"encoding": encoding, "module": name})
                for n, h, name in zip(inputs, hidden, CLASS_NAMES)
            ]
        if len(networks) != 3:
            raise NetworkError(f"a modular value needs 3 networks, not {len(networks)}")
        for name, n, net in zip(CLASS_NAMES, inputs, networks):
            if net.n_inputs != n or net.n_outputs != outputs or net.output != "linear":
                raise NetworkError(f"the {name} module must be a {n}-input linear network with {outputs} "
                                   f"output(s) for encoding {encoding!r}, not {net!r}")
        self.networks = list(networks)
        self.encoding = encoding
        self.n_outputs = outputs

    def __repr__(self) -> str:
        sizes = ", ".join(f"{n}={net.n_hidden}" for n, net in zip(CLASS_NAMES, self.networks))
        return f"ModularValue({sizes}, encoding={self.encoding!r}, outputs={self.n_outputs})"

    def encode(self, boards: np.ndarray, cls: int) -> np.ndarray:
        """The inputs of the ``cls`` module for afterstate rows ``boards`` (all of that class)."""
        if self.encoding == TESAURO:
            return encode_afterstates(boards)
        return features.encode_class(boards, cls)

    def outputs(self, afterstates: np.ndarray, classes: np.ndarray | None = None) -> np.ndarray:
        """Every output (``[n, outputs]``) of each afterstate row by its class's network, one batch a class."""
        boards = np.ascontiguousarray(afterstates, dtype=np.int8)
        if boards.ndim == 1:
            boards = boards[None, :]
        if classes is None:
            classes = position_classes(boards)
        out = np.empty((boards.shape[0], self.n_outputs))
        for k, net in enumerate(self.networks):
            rows = np.flatnonzero(classes == k)
            if rows.size == boards.shape[0]:
                return net.outputs(self.encode(boards, k))
            if rows.size:
                out[rows] = net.outputs(self.encode(boards[rows], k))
        return out

    def evaluation(self, outputs: np.ndarray) -> np.ndarray:
        """One number per output row: the single output, or with 7 outputs the paper's average of the single
        output and the outcome outputs' expected points."""
        if self.n_outputs == 1:
            return outputs[:, 0]
        return 0.5 * (outputs[:, 0] + expected_points(outputs[:, 1:]))

    def values(self, afterstates: np.ndarray) -> np.ndarray:
        """The value of each afterstate row (mover's view, not swapped), for the side that just moved."""
        return self.evaluation(self.outputs(afterstates))

    def choose(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        """Greedy one-ply play: a winning afterstate first, else the highest value (a :data:`Chooser`)."""
        results = game_results(afterstates)
        if results.max() > 0:
            return int(np.argmax(results))  # the biggest win
        return int(np.argmax(self.values(afterstates)))

    __call__ = choose

    def copy(self) -> ModularValue:
        return ModularValue(0, encoding=self.encoding, outputs=self.n_outputs,
                            networks=[net.copy() for net in self.networks])

    # -- files -----------------------------------------------------------------------------

    def _arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "encoding": self.encoding, "outputs": self.n_outputs,
                "modules": [{"name": n, "metadata": net.metadata} for n, net in zip(CLASS_NAMES, self.networks)]}
        arrays = {f"{prefix}meta": np.array(json.dumps(meta))}
        for name, net in zip(CLASS_NAMES, self.networks):
            for part, a in zip(("W1", "b1", "W2", "b2"), net.params):
                arrays[f"{prefix}{name}_{part}"] = np.array(a)
        return arrays

    def save(self, path: str | Path) -> None:
        """Write the three networks to one ``.npz`` file, atomically."""
        buf = io.BytesIO()
        np.savez(buf, **self._arrays())
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def _from_arrays(cls, arrays: dict[str, np.ndarray], source: str, prefix: str = "") -> ModularValue:
        try:
            meta = load_json(str(arrays[f"{prefix}meta"]), source, f"the '{prefix}meta' header")
            version = meta.get("version")
            if meta.get("format") != FORMAT or version not in (1, FORMAT_VERSION):
                raise NetworkError(f"{source}: not a modular backgammon network file (version {FORMAT_VERSION})")
            networks = [
                ValueNetwork.from_arrays(*(arrays[f"{prefix}{name}_{p}"] for p in ("W1", "b1", "W2", "b2")),
                                         output="linear", metadata=module.get("metadata", {}),
                                         source=f"{source}[{name}]")
                for name, module in zip(CLASS_NAMES, meta["modules"])
            ]
            encoding = meta.get("encoding", TESAURO)
            outputs = int(meta.get("outputs", 1))  # version 1 files: one output, tesauro198
            return cls(0, encoding=encoding, outputs=outputs, networks=networks)
        except NetworkError as exc:  # a module's weights (named by it) or a module that does not fit
            message = str(exc)
            raise NetworkError(message if message.startswith(source) else f"{source}: {message}") from None
        except SumitoError as exc:  # the header (load_json's message names the file)
            raise NetworkError(str(exc)) from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise NetworkError(f"{source}: damaged modular network file ({type(exc).__name__}: {exc})") from None

    @classmethod
    def load(cls, path: str | Path) -> ModularValue:
        """Read a file written by :meth:`save`; a bad file raises :class:`NetworkError`."""
        return cls._from_arrays(_read_npz(path), shown_path(path))


def _read_npz(path: str | Path) -> dict[str, np.ndarray]:
    # read bounded: a regular file of at most MAX_NETWORK_BYTES whose arrays inflate to no more (a FIFO,
    # /dev/zero or a zip bomb is a one-line error at once)
    try:
        data = read_file_bounded(path, MAX_NETWORK_BYTES, "backgammon network file")
        return read_npz_arrays(data, str(path), MAX_NETWORK_BYTES, "backgammon network file")
    except ValueError as exc:
        raise NetworkError(str(exc)) from None


class ModularTrainer:
    """Offline minimax TD(λ) for a :class:`ModularValue` (module notes).

    Who chooses the moves: ``opponent=None`` and ``observe=None`` — self-play, the model greedily for both
    sides; ``opponent`` — the model is side 0 and ``opponent`` (a :data:`Chooser`, which does not learn,
    e.g. :class:`~sumito.players.backgammon.gnubg_expert.GnubgExpert`) side 1; ``observe`` — that chooser plays
    both sides and the model never chooses. Every game's afterstates are learned from in all three.

    ``alpha``: one learning rate or one per module (endgame, race, other). ``points=True``: a one-output
    model learns the points ±1/2/3 instead of ±1 (a seven-output model always does). ``targets``:
    ``"own"`` (the model's values) or ``"expert"`` (``evaluator``'s, an object with gnubg's
    ``evaluate(boards) -> [n, 5]``; by default ``observe`` or ``opponent`` when it has ``evaluate``).
    """

    def __init__(
        self,
        model: ModularValue,
        rng: np.random.Generator | int,
        *,
        opponent: Chooser | None = None,
        alpha: float | tuple[float, float, float] = ALPHA,
        lam: float = LAMBDA,
        points: bool = False,
        start: BackgammonPosition | None = None,
        observe: Chooser | None = None,
        targets: str = "own",
        evaluator: Any = None,
    ) -> None:
        self.model = model
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng))
        if observe is not None and opponent is not None:
            raise ValueError("observing mode has no opponent: the observed chooser plays both sides")
        if targets not in ("own", "expert"):
            raise ValueError(f"targets is 'own' or 'expert', not {targets!r}")
        if targets == "expert" and evaluator is None:
            evaluator = next((c for c in (observe, opponent) if hasattr(c, "evaluate")), None)
            if evaluator is None:
                raise ValueError("targets='expert' needs an evaluator with evaluate(boards) (a GnubgExpert)")
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda is in [0, 1], not {lam!r}")
        alphas = (alpha,) * 3 if isinstance(alpha, int | float) else tuple(alpha)
        if len(alphas) != 3 or not all(0.0 < a <= 1.0 for a in alphas):
            raise ValueError(f"alpha is one number in (0, 1] or three (endgame, race, other), not {alpha!r}")
        self.opponent = opponent
        self.observe = observe
        self.targets = targets
        self.evaluator = evaluator
        self.alphas = tuple(float(a) for a in alphas)
        self.lam = float(lam)
        self.points = bool(points)
        self.start_board = (start or BackgammonPosition.start()).board.copy()
        self.games = 0
        self.abandoned = 0  # games cut at MAX_PLIES (counted in ``games``; learned from, bootstrapped)
        self.positions = np.zeros(3, dtype=np.int64)  # learning afterstates seen per class

    # -- playing ---------------------------------------------------------------------------

    def play_game(self) -> int:
        """Play one game and learn from it; returns the result from side 0's view (±1/2/3; 0 for a game cut
        at :data:`MAX_PLIES`)."""
        chain, result = self.generate_game()
        self.abandoned += result == 0
        self.learn_game(chain, result)
        self.games += 1
        return result

    def generate_game(self) -> tuple[np.ndarray, int]:
        """One game's afterstates ``[T + 1, 28]`` (each from its mover's view) and its result for side 0 (0 when
        it was stopped at :data:`MAX_PLIES`)."""
        chain = []
        mover, dice = opening_roll(self.rng)
        board = self.start_board.copy()
        while len(chain) < MAX_PLIES:
            afterstates, _ = generate_plays(board, dice[0], dice[1])
            if self.observe is not None:
                row = int(self.observe(board, afterstates))
            elif mover == 0 or self.opponent is None:
                row = self.model.choose(board, afterstates)
            else:
                row = int(self.opponent(board, afterstates))
            after = afterstates[row]
            chain.append(after)
            result = int(game_result(after))
            if result != 0:
                return np.array(chain, dtype=np.int8), (result if mover == 0 else -result)
            board = swap_array(after)
            mover = 1 - mover
            dice = roll_dice(self.rng)
        return np.array(chain, dtype=np.int8), 0

    # -- learning --------------------------------------------------------------------------

    def targets_of(self, chain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The classes and λ-return targets ``[T, outputs]`` of a game's afterstates ``chain[:-1]``
        (``chain[-1]`` ends the game, or is where an abandoned game stopped: its value then stands in for the
        result; see the module notes)."""
        final = int(game_result(chain[-1]))  # > 0: the last mover won; 0: abandoned
        states = chain if final == 0 else chain[:-1]
        classes = position_classes(states)
        n_out = self.model.n_outputs
        if self.targets == "expert":
            values = expert_outputs(self.evaluator.evaluate(np.array([swap_array(s) for s in states])),
                                    n_out, self.points)
        else:
            values = self.model.outputs(states, classes)
        if final == 0:
            g = flip_outputs(values[-1])
            classes = classes[:-1]
        else:
            g = flip_outputs(outcome_outputs(final, n_out, self.points))
        returns = np.empty((chain.shape[0] - 1, n_out))
        lam = self.lam
        returns[-1] = g
        for t in range(returns.shape[0] - 2, -1, -1):
            g = flip_outputs((1.0 - lam) * values[t + 1] + lam * g)
            returns[t] = g
        return classes, returns

    def learn_game(self, chain: np.ndarray, result: int = 0) -> None:
        """Offline TD(λ) on one finished game's afterstates (``chain[-1]`` ends the game): every state moves
        towards its λ-return, in order, each by its class's network (runs of one class in one batch)."""
        if chain.shape[0] < 2:
            return
        classes, returns = self.targets_of(chain)
        states = chain[:-1]
        start = 0
        n = states.shape[0]
        while start < n:
            c = int(classes[start])
            stop = start
            while stop < n and classes[stop] == c:
                stop += 1
            fit_outputs(self.model.networks[c], self.model.encode(states[start:stop], c), returns[start:stop],
                        alpha=self.alphas[c])
            self.positions[c] += stop - start
            start = stop

    def train(self, games: int) -> dict[str, float]:
        """Play ``games`` games; returns ``{"games", "seconds", "games_per_minute", "side0_wins"}``
        (abandoned games count as played, not won)."""
        t0 = time.perf_counter()
        wins = sum(self.play_game() > 0 for _ in range(int(games)))
        seconds = time.perf_counter() - t0
        return {"games": float(games), "seconds": seconds, "games_per_minute": 60.0 * games / max(seconds, 1e-9),
                "side0_wins": float(wins)}

    # -- checkpoints -----------------------------------------------------------------------

    def save_checkpoint(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        """Networks, random generator and counters in one ``.npz``, written atomically (between games)."""
        state = {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "games": self.games,
                 "abandoned": self.abandoned,
                 "positions": self.positions.tolist(), "rng": self.rng.bit_generator.state,
                 "alphas": list(self.alphas), "lam": self.lam, "points": self.points, "targets": self.targets,
                 "start": self.start_board.tolist(), "extra": extra or {}}
        arrays = self.model._arrays("model_")
        arrays["trainer"] = np.array(json.dumps(state))
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load_checkpoint(cls, path: str | Path, **choosers: Any) -> tuple[ModularTrainer, dict[str, Any]]:
        """A trainer resumed from :meth:`save_checkpoint` (``choosers``: ``opponent``/``observe``/``evaluator``,
        which a file cannot hold) and the ``extra`` dict saved with it."""
        arrays = _read_npz(path)
        source = shown_path(path)
        try:
            state = load_json(str(arrays["trainer"]), source, "the 'trainer' header")
            if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT or \
                    state.get("version") != CHECKPOINT_VERSION:
                raise NetworkError(f"{source}: not a backgammon training checkpoint (version {CHECKPOINT_VERSION})")
            model = ModularValue._from_arrays(arrays, source, "model_")
            rng = np.random.default_rng()
            rng.bit_generator.state = state["rng"]
            trainer = cls(model, rng, alpha=tuple(state["alphas"]), lam=state["lam"], points=state["points"],
                          targets=state["targets"], start=BackgammonPosition(np.array(state["start"], np.int8)),
                          **choosers)
            trainer.games = int(state["games"])
            trainer.abandoned = int(state.get("abandoned", 0))
            trainer.positions = np.array(state["positions"], dtype=np.int64)
        except NetworkError:  # named the file already
            raise
        except SumitoError as exc:  # the header, or a setting the trainer refuses
            message = str(exc)
            raise NetworkError(message if message.startswith(source) else f"{source}: {message}") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise NetworkError(f"{source}: damaged training checkpoint ({type(exc).__name__}: {exc})") from None
        return trainer, state.get("extra", {})
