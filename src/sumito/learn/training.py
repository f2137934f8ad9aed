"""Training a value network by TD(λ) on any :class:`~sumito.models.game.LearningGame`.

Where the training games come from (Wiering 2010's question):

- ``self``: the learner plays both sides with one network, from each side's point of view; each
  side has its own eligibility traces (its own sequence of afterstates);
- an opponent (any object with ``choose_move(state)``, e.g. a Sumito player): the learner plays
  one side, alternating colours game by game, and learns from its own afterstates;
- ``observe``: an expert plays both sides and the learner learns from the afterstates the expert
  chose, for both sides, without playing a move itself.

Move selection is greedy over the afterstates (one ply), ε-greedy while training with ε decaying
after each game (``ε ← decay·ε``, the Abalearn paper's ε₀ = 0.9, decay 0.99). Greedy means, by
default (``choice="reward"``, eq. 3's R(s_t, a_t) + γV), the move's immediate reward (marbles pushed
off) plus γ times its afterstate's value; ``choice="value"`` takes the afterstate the network values
most alone (the paper's words "the move for which the function approximator gave the higher value";
a move that wins the game outright is always taken, as the game's end is known from the rules).

The defaults (a linear output, ±1 a marble, ``choice="reward"``, 10 hidden units) are the reading
under which the Abalearn paper's Table 2 comes closest, chosen by the written-down reading search of
docs/reproductions.md ("The reading search"); the paper's sigmoid output and the value-only choice
stay options (``output="sigmoid"``, ``choice="value"``). The hidden units are ours (the paper gives
none). For each side the
TD error of its previous afterstate is ``r + γV(next afterstate) − V(previous)``, with ``r`` the
marbles taken (+1 each) and lost (−1 each) in between, and the result (±1) at the end; with
``end_only`` rewards, only the result. A game cut by the ply cap or a repetition tie ends with
reward 0.

**TD-Leaf(λ)** (``search_depth`` d = 3, 5, …; Baxter, Tridgell & Weaver's KnightCap method, the
direction the Abalearn paper's conclusion names): each learner move is chosen by a d-ply
alpha-beta search whose horizon is valued by the current network, and the TD updates go to the
*leaf of the principal variation* instead of the afterstate of the move played. The leaf of move
t is the position after the move and the rest of the PV the search predicts, up to d plies; it is
cut back to the last learner move when the PV ends after an opponent's move (so it is always a
learner afterstate, encoded like one), and ends early at a won position. With ``M(p)`` the
learner's cumulative material in ``p`` (marbles it took minus marbles it lost; always 0 with
``end_only`` rewards), the TD error is ``δ_t = [M(leaf_{t+1}) − M(leaf_t)] + γV(leaf_{t+1}) −
V(leaf_t)``, and at the end of the game the last leaf's terminal target is ``M(final) −
M(leaf) ± 1`` (0 for a draw) — with d = 1 exactly the rule above. A leaf that is a won position
(a win the search found within d plies) is terminal: its target is the material change plus 1
and that side learns nothing more in that game. ε-greedy still applies: a random move (and, in
the ``observe`` regime, the expert's move) is played as the first ply, and its leaf comes from a
(d−1)-ply search from the opponent's side of the position after it, so that every leaf is a
d-ply search leaf. The search belongs to the game (``search_leaf``, :class:`LeafSearchGame`;
Abalone's is :mod:`sumito.models.tdleaf`), so this module stays game-independent.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, Protocol

import numpy as np

from sumito.errors import SumitoError
from sumito.models.game import Leaf, LearningGame
from sumito.models.network import ValueNetwork
from sumito.models.policy import CHOICES, CREDITS, VIEWS, move_scores
from sumito.models.td import ALPHA, GAMMA, KAPPA, LAMBDA, TRACE_DECAYS, TDLambda, offline_td_lambda
from sumito.nn import OUTPUT_KINDS
from sumito.players.base import PlayerSpecError, parse_spec


class TrainingError(SumitoError):
    """A bad training configuration or checkpoint."""


class Opponent(Protocol):
    def choose_move(self, state: Any) -> int: ...


#: the largest value of each numeric option (a network of 10^8 hidden units or a 99-ply TD-Leaf search is a
#: typo, not an experiment: refused before it exhausts memory or never ends)
EPSILON_SCHEDULES = ("game", "self-play")
_UPPER_BOUNDS = {"hidden": 4096, "search_depth": 9, "seed": 2**63 - 1, "max_plies": 10**6, "repetitions": 10**6,
                 "switch_after": 10**9, "opening_plies": 1000}


@dataclass
class TrainingConfig:
    """Everything that defines a training run (presets fill it; every field can be overridden)."""

    # the reading search's default (docs/reproductions.md, stages 2 and 3): Abalearn 2's centre as rings 0-2,
    # its middle ring 3 and its border ring 4 (Figure 1 keeps no text; stage 3 chose the split); a linear
    # output (the paper says sigmoid, which cannot represent returns of several marbles), rewards of ±1 a
    # marble (the paper's), the reward added when choosing (eq. 3), 10 hidden units (ours)
    encoding: str = "abalearn3-c012"
    hidden: int = 10
    output: str = "linear"  # or "sigmoid" (the paper's) or "tanh" (ours)
    alpha: float = ALPHA
    gamma: float = GAMMA
    lam: float = LAMBDA
    kappa: float = KAPPA
    epsilon: float = 0.9  # ε₀
    epsilon_decay: float = 0.99  # ε ← decay·ε after each game
    epsilon_min: float = 0.05  # a floor under ε (stage 3's default; the paper gives ε for Method II only)
    # "game": ε decays from ε₀ over all the games; "self-play": with opponent-then-self, ε starts again at ε₀
    # when self-play begins (else ε is about 4e-5 by then, and self-play games nearly replay each other)
    epsilon_schedule: str = "game"
    rewards: str = "marbles"  # or "end": the result only
    regime: str = "self"  # self | opponent | observe | opponent-then-self
    opponent: str = "random"  # player spec for the opponent / expert regimes
    switch_after: int = 1000  # opponent-then-self: games against the opponent first
    td_mode: str = "online"  # online traces, or offline λ-returns at the end of each game (Wiering 3.3)
    targets: str = "own"  # "own" evaluations, or the path of an expert network whose evaluations are the targets
    seed: int = 0
    layout: str = "standard"
    max_plies: int = 200
    repetitions: int = 20
    opening_plies: int = 0  # random plies opening every training game (variety for deterministic play)
    search_depth: int = 1  # 1: greedy afterstates; 3, 5, ...: TD-Leaf(λ) through a search of that many plies
    choice: str = "reward"  # greedy by reward + γ·value (eq. 3), or "value": the afterstate's value alone
    trace_decay: str = "lambda"  # eq. 5's λ^(t−k), or "gamma-lambda": (γλ)^(t−k)
    reward_scale: float = 1.0  # every reward (marbles and result) times this
    view: str = "mover"  # values from the mover's view, or "black": one value of the game, White minimising
    credit: str = "transition"  # a push's reward in the previous afterstate's target, or "afterstate": in its own

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str) and len(value) > 500:  # a name, a spec or a path: never this long
                raise TrainingError(f"{f.name} has {len(value):,} characters; at most 500")
            default = getattr(TrainingConfig, f.name, None)
            if default is None:
                continue
            if isinstance(default, bool) or isinstance(value, bool):
                ok = isinstance(value, bool) and isinstance(default, bool)
            elif isinstance(default, int):
                ok = isinstance(value, int)
            elif isinstance(default, float):
                ok = isinstance(value, int | float) and math.isfinite(value)
            else:
                ok = isinstance(value, type(default))
            if not ok:
                raise TrainingError(f"{f.name} must be {type(default).__name__}, not {value!r}")
        for name in ("seed", "max_plies", "repetitions", "switch_after", "opening_plies"):
            if getattr(self, name) < 0:
                raise TrainingError(f"{name} must be 0 or more, not {getattr(self, name)}")
        if self.output not in OUTPUT_KINDS:
            raise TrainingError(f"output must be one of {', '.join(OUTPUT_KINDS)}, not {self.output!r}")
        if self.epsilon_schedule not in EPSILON_SCHEDULES:
            raise TrainingError(f"epsilon_schedule must be one of {', '.join(EPSILON_SCHEDULES)}, "
                                f"not {self.epsilon_schedule!r}")
        if not 0 <= self.epsilon_min <= 1:
            raise TrainingError(f"epsilon_min must lie in [0, 1], not {self.epsilon_min}")
        if self.rewards not in ("marbles", "end"):
            raise TrainingError(f"rewards must be 'marbles' or 'end', not {self.rewards!r}")
        if self.regime not in ("self", "opponent", "observe", "opponent-then-self"):
            raise TrainingError(
                f"regime must be self, opponent, observe or opponent-then-self, not {self.regime!r}"
            )
        if self.choice not in CHOICES:
            raise TrainingError(f"choice must be one of {', '.join(CHOICES)}, not {self.choice!r}")
        if self.trace_decay not in TRACE_DECAYS:
            raise TrainingError(f"trace_decay must be one of {', '.join(TRACE_DECAYS)}, not {self.trace_decay!r}")
        if self.reward_scale <= 0:
            raise TrainingError(f"reward_scale must be above 0, not {self.reward_scale}")
        if self.view not in VIEWS:
            raise TrainingError(f"view must be 'mover' or 'black', not {self.view!r}")
        if self.view == "black" and (self.regime != "self" or self.search_depth != 1 or self.td_mode != "online"):
            raise TrainingError("view=black (one value of the game from Black's view) is for online one-ply self-play")
        if self.credit not in CREDITS:
            raise TrainingError(f"credit must be 'transition' or 'afterstate', not {self.credit!r}")
        if self.credit == "afterstate" and (self.search_depth != 1 or self.td_mode != "online" or self.view != "mover"):
            raise TrainingError("credit=afterstate is for online one-ply training from the mover's view")
        if self.reward_scale != 1.0 and self.search_depth != 1:
            raise TrainingError("reward_scale is for one-ply training (search_depth 1)")
        if self.td_mode not in ("online", "offline"):
            raise TrainingError(f"td_mode must be 'online' or 'offline', not {self.td_mode!r}")
        if not 0 <= self.epsilon <= 1 or not 0 < self.epsilon_decay <= 1:
            raise TrainingError("epsilon must lie in [0, 1] and epsilon_decay in (0, 1]")
        for name, high in _UPPER_BOUNDS.items():  # before anything is allocated or searched
            if getattr(self, name) > high:
                raise TrainingError(f"{name} must be at most {high}, not {getattr(self, name)}")
        if self.hidden < 1:
            raise TrainingError(f"hidden must be at least 1, not {self.hidden}")

        try:
            kind, _ = parse_spec(self.opponent)
        except PlayerSpecError as exc:
            raise TrainingError(f"opponent: {exc}") from None
        if kind.name == "human":
            raise TrainingError("opponent cannot be 'human': training games are played without a person")
        if self.search_depth < 1 or self.search_depth % 2 == 0:
            raise TrainingError(
                f"search_depth must be an odd number of plies (1, 3, 5, ...) so that a leaf is the learner's "
                f"afterstate, not {self.search_depth}"
            )




@dataclass
class GameStats:
    plies: int
    winner: int  # 1, 2 or 0 (draw)
    learner_sides: tuple[int, ...]


class Trainer:
    """A network, its TD(λ) learners (one per side), ε, the RNG and the game count."""

    def __init__(
        self,
        game: LearningGame,
        config: TrainingConfig,
        opponent_factory: Callable[[str, int], Opponent] | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.network = ValueNetwork(
            game.n_inputs, config.hidden, self.rng, output=config.output,
            # how one-ply play should rank moves with this network: TD-Leaf's search values its
            # leaves as material + V, so its networks are played with the reward added
            # (every reading that decides how a move is chosen, so that a player plays it as it was trained)
            metadata={"encoding": game.encoding, "games": 0, "gamma": config.gamma, "rewards": config.rewards,
                      "choice": config.choice if config.search_depth == 1 else "reward", "view": config.view,
                      "reward_scale": config.reward_scale, "training": asdict(config)},
        )
        self.learners = {side: self._learner() for side in (1, 2)}
        self.epsilon = config.epsilon
        self.games = 0
        self.opponent_factory = opponent_factory
        self._opponent: Opponent | None = None
        self.expert: ValueNetwork | None = None
        if config.targets != "own":
            self.expert = ValueNetwork.load(config.targets)
            self.expert.expect(n_inputs=game.n_inputs, encoding=game.encoding)
        if config.search_depth > 1 and not callable(getattr(game, "search_leaf", None)):
            raise TrainingError(
                f"search_depth {config.search_depth} (TD-Leaf) needs a game that can search; "
                f"{type(game).__name__} has no search_leaf"
            )

    def _learner(self) -> TDLambda:
        c = self.config
        return TDLambda(self.network, alpha=c.alpha, gamma=c.gamma, lam=c.lam, kappa=c.kappa,
                        trace_decay=c.trace_decay)

    def regime_now(self) -> str:
        c = self.config
        if c.regime == "opponent-then-self":
            return "opponent" if self.games < c.switch_after else "self"
        return c.regime

    def opponent(self) -> Opponent:
        """This game's opponent (or expert), built afresh for every game with a seed drawn from
        the run's seed and the game number, so that a resumed run meets the same opponents."""
        if self._opponent is None:
            if self.opponent_factory is None:
                raise TrainingError(f"the {self.regime_now()} regime needs an opponent factory")
            seed = int(np.random.SeedSequence(self.config.seed, spawn_key=(self.games,)).generate_state(1)[0])
            self._opponent = self.opponent_factory(self.config.opponent, seed)
        return self._opponent

    def train_until(self, games: int) -> float:
        """Training games until ``games`` have been played in all; the seconds they took."""
        start = time.perf_counter()
        while self.games < games:
            self.play_game()
        return time.perf_counter() - start

    # ------------------------------------------------------------------------------ one game
    def play_game(self) -> GameStats:
        """One training game with TD(λ) updates (TD-Leaf(λ) with ``search_depth`` > 1); then ε decays."""
        regime = self.regime_now()
        if regime in ("self", "observe"):
            learner_sides: tuple[int, ...] = (1, 2)
        else:
            learner_sides = (1 + self.games % 2,)  # alternate colours game by game
        if self.config.search_depth > 1:
            plies, winner = self._play_leaf_game(regime, learner_sides)
        elif self.config.view == "black":
            plies, winner = self._play_fixed_view_game()
        else:
            plies, winner = self._play_afterstate_game(regime, learner_sides)
        self.games += 1
        self._opponent = None  # the next game gets its own
        self.epsilon = max(self.config.epsilon_min, self.epsilon * self.config.epsilon_decay)
        c = self.config
        if c.epsilon_schedule == "self-play" and c.regime == "opponent-then-self" and self.games == c.switch_after:
            self.epsilon = c.epsilon
        self.network.metadata["games"] = self.games
        return GameStats(plies, winner, learner_sides)

    def _play_afterstate_game(self, regime: str, learner_sides: tuple[int, ...]) -> tuple[int, int]:
        """TD(λ) over the afterstates of the moves played, chosen greedily one ply deep."""
        game, net, rng, c = self.game, self.network, self.rng, self.config
        end_only = c.rewards == "end"
        scale = c.reward_scale
        by_afterstate = c.credit == "afterstate"
        state = game.start(rng)
        prev: dict[int, np.ndarray | None] = {1: None, 2: None}
        pending = {1: 0.0, 2: 0.0}
        offline = self.config.td_mode == "offline"
        episode: dict[int, tuple[list[np.ndarray], list[float]]] = {1: ([], []), 2: ([], [])}
        for side in learner_sides:
            self.learners[side].start_episode()
        plies = 0
        while game.outcome(state) is None:
            side = game.side_to_move(state)
            other = 3 - side
            if side in learner_sides:
                options = game.afterstates(state)
                values = net.values(options.inputs)
                if regime == "observe":
                    move = self.opponent().choose_move(state)
                    i = int(np.flatnonzero(options.moves == move)[0])
                elif rng.random() < self.epsilon:
                    i = int(rng.integers(len(options.moves)))
                else:
                    i = int(np.argmax(move_scores(options, values, c.gamma, end_only, c.choice, scale)))
                gain = 0.0 if end_only else float(options.gains[i])
                # the reward of this move: in this step's target (credit=transition), or in the
                # target of the afterstate it creates, so that V(afterstate) includes it
                reward = scale * (pending[side] + (0.0 if by_afterstate else gain))
                won = bool(options.wins[i])
                learner = self.learners[side]
                if prev[side] is not None:
                    if by_afterstate and won:  # the winning afterstate is terminal, its value known
                        learner.step(prev[side], reward, next_value=scale * (gain + 1.0))
                    elif offline:
                        episode[side][1].append(reward + (scale if won else 0.0))
                    elif won:
                        learner.step(prev[side], reward + scale, terminal=True)
                    else:
                        learner.step(prev[side], reward, next_value=self._target_value(options.inputs[i], values[i]))
                prev[side] = None if won else options.inputs[i].copy()
                if offline and not won:
                    episode[side][0].append(prev[side])
                pending[side] = gain if by_afterstate else 0.0
                move = int(options.moves[i])
            else:
                move = self.opponent().choose_move(state)
            lost_before = game.losses_of(state, other)
            state = game.play(state, move)
            plies += 1
            if not end_only:
                pending[other] -= game.losses_of(state, other) - lost_before
        winner = game.outcome(state) or 0
        for side in learner_sides:
            learner = self.learners[side]
            result = 1.0 if winner == side else -1.0 if winner == 3 - side else 0.0
            if offline:
                xs, rewards = episode[side]
                if prev[side] is not None:
                    rewards.append(scale * (pending[side] + result))
                if xs:
                    self._offline_update(np.array(xs), np.array(rewards))
                learner.end_episode()
            elif prev[side] is not None:
                learner.end_episode(prev[side], scale * (pending[side] + result))
            else:
                learner.end_episode()
        return plies, winner

    def _play_fixed_view_game(self) -> tuple[int, int]:
        """Self-play with one value of the game, from Black's view (TD-Gammon's form): every
        afterstate is encoded for Black, Black plays the highest-valued one and White the lowest,
        and one TD(λ) sequence runs over every ply's afterstate with the rewards as Black receives
        them (+ for White's marbles pushed off and Black's win, − for Black's). κ's asymmetry then
        favours Black's outcomes over White's, the other reading of a risk-seeking self-play agent."""
        game, net, rng, c = self.game, self.network, self.rng, self.config
        end_only = c.rewards == "end"
        scale = c.reward_scale
        learner = self.learners[1]
        learner.start_episode()
        state = game.start(rng)
        prev: np.ndarray | None = None
        plies = 0
        while game.outcome(state) is None:
            sign = 1.0 if game.side_to_move(state) == 1 else -1.0
            options = game.afterstates(state, viewer=1)  # type: ignore[call-arg]  (Abalone's afterstates)
            values = net.values(options.inputs)
            if rng.random() < self.epsilon:
                i = int(rng.integers(len(options.moves)))
            else:
                # White ranks by its own view of the same value (zero-sum: −V)
                i = int(np.argmax(move_scores(options, sign * values, c.gamma, end_only, c.choice, scale)))
            reward = 0.0 if end_only else sign * scale * float(options.gains[i])
            won = bool(options.wins[i])
            if prev is not None:
                if won:
                    learner.step(prev, reward + sign * scale, terminal=True)
                else:
                    learner.step(prev, reward, next_value=float(values[i]))
            prev = None if won else options.inputs[i].copy()
            state = game.play(state, int(options.moves[i]))
            plies += 1
        winner = game.outcome(state) or 0
        result = 1.0 if winner == 1 else -1.0 if winner == 2 else 0.0
        if prev is not None:
            learner.end_episode(prev, scale * result)
        else:
            learner.end_episode()
        return plies, winner

    def _play_leaf_game(self, regime: str, learner_sides: tuple[int, ...]) -> tuple[int, int]:
        """TD-Leaf(λ): the learner's moves come from a search, the updates go to its PV leaves.

        Per side, ``prev`` holds the last leaf's inputs and material; a won leaf is terminal and
        ends that side's learning for the game (``done``)."""
        game, net, rng = self.game, self.network, self.rng
        depth = self.config.search_depth
        end_only = self.config.rewards == "end"
        offline = self.config.td_mode == "offline"
        search_leaf = game.search_leaf  # type: ignore[attr-defined]  (checked in __init__)
        state = game.start(rng)
        prev: dict[int, tuple[np.ndarray, float] | None] = {1: None, 2: None}
        done = {1: False, 2: False}
        episode: dict[int, tuple[list[np.ndarray], list[float]]] = {1: ([], []), 2: ([], [])}
        for side in learner_sides:
            self.learners[side].start_episode()
        plies = 0
        while game.outcome(state) is None:
            side = game.side_to_move(state)
            if side in learner_sides:
                first: int | None = None
                if regime == "observe":
                    first = int(self.opponent().choose_move(state))
                elif rng.random() < self.epsilon:
                    moves = game.afterstates(state).moves
                    first = int(moves[rng.integers(len(moves))])
                leaf: Leaf = search_leaf(state, net, depth, first)
                if not done[side]:
                    material = 0.0 if end_only else float(leaf.material)
                    learner = self.learners[side]
                    if prev[side] is not None:
                        x_prev, material_prev = prev[side]
                        reward = material - material_prev
                        if offline:
                            episode[side][1].append(reward + (1.0 if leaf.won else 0.0))
                        elif leaf.won:
                            learner.step(x_prev, reward + 1.0, terminal=True)
                        else:
                            own = float(net.values(leaf.inputs[None, :])[0]) if self.expert is None else 0.0
                            learner.step(x_prev, reward, next_value=self._target_value(leaf.inputs, own))
                    if leaf.won:
                        prev[side] = None
                        done[side] = True
                    else:
                        prev[side] = (np.array(leaf.inputs, dtype=np.float64), material)
                        if offline:
                            episode[side][0].append(prev[side][0])
                move = leaf.move
            else:
                move = self.opponent().choose_move(state)
            state = game.play(state, move)
            plies += 1
        winner = game.outcome(state) or 0
        for side in learner_sides:
            learner = self.learners[side]
            result = 1.0 if winner == side else -1.0 if winner == 3 - side else 0.0
            last = prev[side]
            final = 0.0
            if last is not None:
                material = 0.0 if end_only else float(game.losses_of(state, 3 - side) - game.losses_of(state, side))
                final = material - last[1] + result
            if offline:
                xs, rewards = episode[side]
                if last is not None:
                    rewards.append(final)
                if xs:
                    self._offline_update(np.array(xs), np.array(rewards))
                learner.end_episode()
            elif last is not None:
                learner.end_episode(last[0], final)
            else:
                learner.end_episode()
        return plies, winner

    def _target_value(self, x: np.ndarray, own_value: float) -> float:
        """V(s_{t+1}) in the TD target: the network's own value, or the expert's evaluation."""
        if self.expert is None:
            return float(own_value)
        return float(self.expert.values(x[None, :])[0])

    def _offline_update(self, X: np.ndarray, rewards: np.ndarray) -> None:
        """Wiering's offline TD(λ): λ-returns over the side's whole game, then the updates."""
        c = self.config
        values = None if self.expert is None else self.expert.values(X)
        offline_td_lambda(self.network, X, rewards, alpha=c.alpha, gamma=c.gamma, lam=c.lam, kappa=c.kappa,
                          values=values)

    # ------------------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Weights, both sides' traces, ε, the game count and the RNG state: enough to resume exactly."""
        return {
            "config": asdict(self.config),
            "learners": {side: learner.state_dict() for side, learner in self.learners.items()},
            "epsilon": self.epsilon,
            "games": self.games,
            "rng": self.rng.bit_generator.state,
            "metadata": dict(self.network.metadata),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        try:
            for side in (1, 2):
                self.learners[side].load_state_dict(state["learners"][side])
            self.epsilon = float(state["epsilon"])
            self.games = int(state["games"])
            self.rng.bit_generator.state = state["rng"]
            self.network.metadata.update(state.get("metadata", {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise TrainingError(f"not a training checkpoint ({type(exc).__name__}: {exc})") from None
