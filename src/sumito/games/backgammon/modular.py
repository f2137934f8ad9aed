"""Wiering's (2010) small modular architecture for backgammon: three value networks, one per position class,
trained by TD(λ) (self-play or against an opponent chooser).

**Position classes** (:func:`position_class`, the paper's section on the modular architecture):

* ``ENDGAME`` (0) — every checker of both sides is in its owner's home board (inner board) or borne off,
  and none is on the bar;
* ``RACE`` (1) — not an endgame, but there is no contact any more: every checker of one side has passed
  every checker of the other (a checker on the bar counts as farthest back), so nothing can hit or be hit
  again (the same test as :func:`sumito.games.backgammon.pubeval.is_race`);
* ``OTHER`` (2) — everything else (contact positions).

Both tests are symmetric in the two sides, so the class of a board does not depend on whose view it is
given in; we apply it to **afterstates as generated** (the mover's view, not swapped — the side that just
moved), the same rows that :func:`~sumito.games.backgammon.learning.encode_afterstates` encodes. Within one
game the class can only go OTHER → RACE → ENDGAME (contact never comes back, and a checker never leaves
its home board), which the trace rule below relies on for exactness.

**Networks.** :class:`ModularValue` holds three :class:`~sumito.learn.network.ValueNetwork`\\ s with sigmoid
hidden units and a linear output: 20 hidden units for the endgame, 20 for the race, 40 for the other
positions (the paper's sizes). All three read the same 198-input ``tesauro198`` raw encoding of
:func:`~sumito.games.backgammon.learning.encode_afterstates`, to keep it simple: the paper's own
hand-designed feature sets (68 / 277 / 393 inputs) are **not** reproduced. A value is the expected result
for the side that just moved (+1 win, −1 loss; or the points 1/2/3 with ``points=True`` in training).

**Training** (:class:`ModularTrainer`): online TD(λ), γ = 1, α = 0.01, λ = 0.6 by default (the paper's),
greedy play (a winning play first, otherwise the highest value). Each learning side has one
:class:`~sumito.learn.td.TDLambda` per network (so in self-play the two sides share the networks but keep
their own traces). For a side's consecutive afterstates ``a_t → a_{t+1}`` the learner of ``a_t``'s class
makes the step ``V_c(a_t) ← 0 + γ V_{c'}(a_{t+1})``, where ``c'`` is ``a_{t+1}``'s class and the value is
the one computed (before the update) to choose the play — so learning crosses modules. At the game's
end the winner's last afterstate before its winning play gets the terminal reward +1 (or +points), the
loser's last afterstate −1 (−points).

*Trace rule.* When the class changes between ``a_t`` and ``a_{t+1}``, the old module's learner makes its
step towards the new module's value and then its eligibility trace is **cleared**; the new module's
learner starts from a trace it cleared at the start of the game. So each module's states receive the
λ-return truncated at the module boundary, bootstrapped there on the next module's value (the errors of
later modules are not passed back into the old module's weights). Because classes never come back within
a game, a module's trace is never resumed after a gap. All traces are cleared at every game's start.

*Observing* (``observe=expert``): the expert chooser plays both sides and the model never chooses a move;
both sides learn (one set of learners each, as in self-play) on the afterstates the expert chose, with
the same targets and trace rule. *Expert targets* (``targets="expert"``, any regime): the bootstrap value
``V(a_{t+1})`` in each step is replaced by the expert's evaluation of ``a_{t+1}`` for the side that just
moved — ``evaluate`` of its :func:`swap_array` (the opponent on roll), negated: the cubeless equity with
``points=True``, ``2 p_win - 1`` otherwise, matching the terminal rewards. Terminal steps keep the real result.

Not provided: checkpoints and resuming a training run (only the networks are saved, :meth:`ModularValue.save`),
doubling-cube play, and the paper's own input features.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from sumito.fileio import atomic_write_bytes
from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import game_results, opening_roll, roll_dice
from sumito.games.backgammon.kernels import generate_plays, rearmost_checkers
from sumito.games.backgammon.learning import ENCODING, N_INPUTS, encode_afterstates
from sumito.learn.network import NetworkError, ValueNetwork
from sumito.learn.td import TDLambda

ENDGAME, RACE, OTHER = 0, 1, 2
CLASS_NAMES = ("endgame", "race", "other")
HIDDEN = (20, 20, 40)  # the paper's hidden units per module
ALPHA = 0.01
LAMBDA = 0.6
GAMMA = 1.0
FORMAT = "sumito-backgammon-modular"
FORMAT_VERSION = 1

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


class ModularValue:
    """Three linear-output value networks (endgame 20, race 20, other 40 hidden units by default) over the
    ``tesauro198`` encoding; each afterstate is valued by its class's network (see the module notes)."""

    def __init__(
        self,
        rng: np.random.Generator | int,
        *,
        hidden: tuple[int, int, int] = HIDDEN,
        networks: list[ValueNetwork] | None = None,
    ) -> None:
        if networks is None:
            gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng))
            networks = [
                ValueNetwork(N_INPUTS, h, gen, output="linear", metadata={"encoding": ENCODING, "module": name})
                for h, name in zip(hidden, CLASS_NAMES)
            ]
        if len(networks) != 3:
            raise NetworkError(f"a modular value needs 3 networks, not {len(networks)}")
        for net in networks:
            if net.n_inputs != N_INPUTS or net.n_outputs != 1 or net.output != "linear":
                raise NetworkError(f"each module must be a {N_INPUTS}-input linear network with 1 output, not {net!r}")
        self.networks = list(networks)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{n}={net.n_hidden}" for n, net in zip(CLASS_NAMES, self.networks))
        return f"ModularValue({sizes})"

    def values_from(self, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """The value of each encoded row ``X[i]`` by the network of ``classes[i]`` (one batch per network)."""
        out = np.empty(X.shape[0], dtype=np.float64)
        for k, net in enumerate(self.networks):
            rows = np.flatnonzero(classes == k)
            if rows.size == X.shape[0]:
                return net.values(X)
            if rows.size:
                out[rows] = net.values(X[rows])
        return out

    def values(self, afterstates: np.ndarray) -> np.ndarray:
        """The value of each afterstate row (mover's view, not swapped), for the side that just moved."""
        boards = np.ascontiguousarray(afterstates, dtype=np.int8)
        if boards.ndim == 1:
            boards = boards[None, :]
        return self.values_from(encode_afterstates(boards), position_classes(boards))

    def choose(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        """Greedy one-ply play: a winning afterstate first, else the highest value (a :data:`Chooser`)."""
        wins = np.flatnonzero(game_results(afterstates) > 0)
        if wins.size:
            return int(wins[0])
        return int(np.argmax(self.values(afterstates)))

    __call__ = choose

    # -- files -----------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the three networks to one ``.npz`` file, atomically."""
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "encoding": ENCODING,
                "modules": [{"name": n, "metadata": net.metadata} for n, net in zip(CLASS_NAMES, self.networks)]}
        arrays = {"meta": np.array(json.dumps(meta))}
        for name, net in zip(CLASS_NAMES, self.networks):
            for part, a in zip(("W1", "b1", "W2", "b2"), net.params):
                arrays[f"{name}_{part}"] = np.array(a)
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> ModularValue:
        """Read a file written by :meth:`save`; a bad file raises :class:`NetworkError`."""
        source = str(path)
        try:
            with np.load(path, allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except FileNotFoundError:
            raise NetworkError(f"{source}: no such file") from None
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            raise NetworkError(f"{source}: not a modular network file ({type(exc).__name__})") from None
        try:
            meta = json.loads(str(arrays["meta"]))
            if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
                raise NetworkError(f"{source}: not a modular backgammon network file (version {FORMAT_VERSION})")
            networks = [
                ValueNetwork.from_arrays(*(arrays[f"{name}_{p}"] for p in ("W1", "b1", "W2", "b2")), output="linear",
                                         metadata=module.get("metadata", {}), source=f"{source}[{name}]")
                for name, module in zip(CLASS_NAMES, meta["modules"])
            ]
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as exc:
            raise NetworkError(f"{source}: damaged modular network file ({type(exc).__name__}: {exc})") from None
        return cls(0, networks=networks)


class ModularTrainer:
    """Online TD(λ) for a :class:`ModularValue` (see the module notes for the targets and the trace rule).

    ``opponent=None``: self-play, both sides learn (shared networks, one set of three learners each);
    otherwise the model plays and learns as side 0 against ``opponent``, a :data:`Chooser` such as
    :class:`~sumito.games.backgammon.pubeval.PubevalPlayer`, which does not learn. ``alpha``: one
    learning rate, or one per module (endgame, race, other). ``points=True``: terminal rewards ±1/2/3.

    ``observe``: a :data:`Chooser` (the expert) that plays both sides while both sides learn (observing
    mode; not with ``opponent``). ``targets``: ``"own"`` (the model's values, TD) or ``"expert"`` (the
    expert's evaluations, see the module notes), which needs ``evaluator``, an object with gnubg's
    ``evaluate(boards) -> [n, 5]`` (:class:`~sumito.games.backgammon.gnubg_expert.GnubgExpert`); by default
    ``observe`` or ``opponent`` when it has one.
    """

    def __init__(
        self,
        model: ModularValue,
        rng: np.random.Generator | int,
        *,
        opponent: Chooser | None = None,
        alpha: float | tuple[float, float, float] = ALPHA,
        lam: float = LAMBDA,
        gamma: float = GAMMA,
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
        self.opponent = opponent
        self.observe = observe
        self.targets = targets
        self.evaluator = evaluator
        alphas = (alpha,) * 3 if isinstance(alpha, int | float) else tuple(alpha)
        if len(alphas) != 3:
            raise ValueError(f"alpha is one number or three (endgame, race, other), not {alpha!r}")
        n_sides = 2 if opponent is None else 1  # self-play and observing: both sides learn
        self.learners = [
            [TDLambda(net, alpha=a, gamma=gamma, lam=lam) for net, a in zip(model.networks, alphas)]
            for _ in range(n_sides)
        ]
        self.points = bool(points)
        self.start_board = (start or BackgammonPosition.start()).board.copy()
        self.games = 0
        self.positions = np.zeros(3, dtype=np.int64)  # learning afterstates seen per class

    def play_game(self) -> int:
        """Play and learn one game; returns the result from side 0's view (±1/2/3, positive: side 0 won)."""
        for side in self.learners:
            for learner in side:
                learner.start_episode()
        prev_x: list[np.ndarray | None] = [None, None]
        prev_c = [0, 0]
        mover, dice = opening_roll(self.rng)
        board = self.start_board.copy()
        while True:
            afterstates, _ = generate_plays(board, dice[0], dice[1])
            learning = mover < len(self.learners)
            if self.observe is not None:
                row = int(self.observe(board, afterstates))
                if game_results(afterstates[row : row + 1])[0] == 0:
                    x = encode_afterstates(afterstates[row : row + 1])
                    c = int(position_class(afterstates[row]))
                    value = self._target(afterstates[row], x, c)
                    self._learn(mover, prev_x, prev_c, x[0], c, value)
            elif learning:
                results = game_results(afterstates)
                wins = np.flatnonzero(results > 0)
                if wins.size:
                    row = int(wins[0])
                else:
                    X = encode_afterstates(afterstates)
                    classes = position_classes(afterstates)
                    values = self.model.values_from(X, classes)
                    row = int(np.argmax(values))
                    c = int(classes[row])
                    value = float(values[row]) if self.targets == "own" else self._expert_value(afterstates[row])
                    self._learn(mover, prev_x, prev_c, X[row], c, value)
            else:
                row = int(self.opponent(board, afterstates))  # type: ignore[misc]
            after = afterstates[row]
            result = int(game_results(after[None, :])[0])
            if result != 0:
                reward = float(result) if self.points else float(np.sign(result))
                for side in range(len(self.learners)):
                    if prev_x[side] is not None:
                        r = reward if side == mover else -reward
                        self.learners[side][prev_c[side]].end_episode(prev_x[side], r)
                self.games += 1
                return result if mover == 0 else -result
            board = swap_array(after)
            mover = 1 - mover
            dice = roll_dice(self.rng)

    def _expert_value(self, after: np.ndarray) -> float:
        """The expert's value of an (unswapped) afterstate for the side that just moved (module notes)."""
        p = np.asarray(self.evaluator.evaluate(swap_array(after)), dtype=np.float64).reshape(-1, 5)[0]
        if self.points:  # the opponent, on roll, gets the equity; the mover its negation
            return -float(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])
        return 1.0 - 2.0 * float(p[0])

    def _target(self, after: np.ndarray, x: np.ndarray, c: int) -> float:
        if self.targets == "expert":
            return self._expert_value(after)
        return float(self.model.networks[c].values(x)[0])

    def _learn(self, mover: int, prev_x: list, prev_c: list, x: np.ndarray, c: int, value: float) -> None:
        """One TD step for ``mover`` from its previous afterstate towards ``value`` of the new one ``x``."""
        self.positions[c] += 1
        if prev_x[mover] is not None:
            learner = self.learners[mover][prev_c[mover]]
            learner.step(prev_x[mover], 0.0, next_value=value)
            if c != prev_c[mover]:
                learner.start_episode()  # the trace rule: clear at the module boundary
        prev_x[mover], prev_c[mover] = np.array(x, copy=True), c

    def train(self, games: int) -> dict[str, float]:
        """Play ``games`` games; returns ``{"games", "seconds", "games_per_minute", "side0_wins"}``."""
        t0 = time.perf_counter()
        wins = sum(self.play_game() > 0 for _ in range(int(games)))
        seconds = time.perf_counter() - t0
        return {"games": float(games), "seconds": seconds, "games_per_minute": 60.0 * games / max(seconds, 1e-9),
                "side0_wins": float(wins)}
