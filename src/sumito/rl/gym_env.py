"""Abalone as a Gymnasium single-agent environment: the agent against an opponent inside the environment.

    import gymnasium, sumito.rl
    env = gymnasium.make("Sumito/Abalone-v0", opponent="engine:depth=2", layout="mini")
    # or, without importing sumito.rl first: gymnasium.make("sumito.rl:Sumito/Abalone-v0", ...)

The agent plays ``color`` (``"black"``, ``"white"`` or ``"random"``: drawn at every reset); the
opponent answers inside :meth:`step`, and moves first when it has the first move. The opponent is

* a player spec string (``sumito players``: ``"random"``, ``"engine:depth=2"``…);
* a Sumito player, or any object with its method ``choose(position, movetime=None, history=None,
  draw=None) -> Move`` (:class:`sumito.players.base.Player`): it gets the position, the Zobrist hashes
  of the game's earlier positions and the draw counters, as in the arena;
* a callable ``opponent(observation, info) -> action``: the observation dict the agent would get in
  the opponent's place (its planes and legal-action mask) and an info dict (``color``, ``plies``),
  returning an action index — a policy, e.g. a frozen copy of the agent for self-play.

Anything else is a one-line :class:`~sumito.rlcore.options.EnvOptionError`. An opponent that plays an
illegal action raises :class:`~sumito.rlcore.core.IllegalActionError` naming it. Only a spec string
is reseeded by a reset's seed.

Observations are the PettingZoo environment's dicts (``observation`` planes from the agent's side
and ``action_mask``); :meth:`SingleAgentEnv.action_masks` gives the mask alone, as maskable-action
learners (sb3-contrib's ``MaskablePPO``) expect. The action space is a plain ``Discrete(n)``: its
``sample()`` is uniform over all ``n`` actions, and ``sample(mask=observation["action_mask"])`` draws a
legal one.

Rewards are the agent's: ``"result"`` +1/−1 when the game is won/lost, ``"marbles"`` +1/−1 for
every marble the agent/opponent pushes off. ``terminated`` when the game ends by its rules,
``truncated`` at the ply cap. An action of the action space that is not legal in the position
(``illegal_action="penalty"``, the default, as PettingZoo's classic games do it) loses the game:
reward ``illegal_reward`` (−1), ``terminated``, the board untouched, ``info["outcome"] ==
"illegal-action"`` and ``info["illegal_action"]`` the action — so a vector environment of
uniformly sampled actions runs. With ``illegal_action="error"`` it raises
:class:`~sumito.rlcore.core.IllegalActionError` (a ``ValueError`` naming the action and its move)
and the game is left as it was. Something that is no action of the space (``-1``, ``n``, ``"a1a2"``)
always raises it.

A reset with a seed reseeds the opening plies, the colour draw and an opponent spec that takes a
seed (``random``, ``heuristic``…), so the same seed gives the same games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from sumito.games.abalone import BLACK, DrawCounters, DrawRules, Position
from sumito.players import make_player
from sumito.players.base import MAX_SEED, Player, seeded_spec
from sumito.rl.render import render_frame
from sumito.rl.spaces import observation_space
from sumito.rlcore.core import ILLEGAL_ACTION, ArrayGame, IllegalActionError
from sumito.rlcore.options import EnvOptionError, EnvOptions

COLORS = ("black", "white", "random")
#: an opponent policy: (its observation dict, its info dict) -> an action index
OpponentPolicy = Callable[[dict[str, np.ndarray], dict[str, Any]], int]
Opponent = str | Player | OpponentPolicy


class SingleAgentEnv(gymnasium.Env):
    """See the module's docstring; ``gymnasium.make("Sumito/Abalone-v0", **options)`` builds one."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        opponent: Opponent = "engine:depth=2",
        color: str = "black",
        layout: str = "belgian-daisy",
        *,
        max_plies: int | None = 400,
        win: int | None = None,
        inline_only: bool | None = None,
        repetitions: int | None = 3,
        reward: str = "result",
        opening_plies: int = 0,
        illegal_action: str = "penalty",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        rules: DrawRules | None = None,
    ) -> None:
        if color not in COLORS:
            raise EnvOptionError(f"color must be one of {', '.join(COLORS)}, not {color!r:.40}")
        self.options = EnvOptions.build(layout=layout, max_plies=max_plies, win=win, inline_only=inline_only,
                                        repetitions=repetitions, reward=reward, opening_plies=opening_plies,
                                        illegal_action=illegal_action, illegal_reward=illegal_reward,
                                        render_mode=render_mode,
                                        render_modes=self.metadata["render_modes"], rules=rules)
        # a spec (kept to reseed it), a player (its choose method) or a policy (a callable)
        self.opponent_spec: str | None = None
        self.opponent: Player | None = None
        self.opponent_policy: OpponentPolicy | None = None
        if isinstance(opponent, str):
            self.opponent_spec = opponent.strip()
            self.opponent = make_player(opponent)  # a bad spec fails here, with the player's own message
        elif callable(getattr(opponent, "choose", None)):
            self.opponent = opponent
        elif callable(opponent):
            self.opponent_policy = opponent
        else:
            raise EnvOptionError(f"opponent must be a player spec string, a player (with a choose method) or a "
                                 f"callable (observation, info) -> action, not {type(opponent).__name__}")
        self.color_choice = color
        self.render_mode = render_mode
        self.game = ArrayGame(self.options.start_position(), self.options.rules)
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(self.game.space.n)
        self.color = BLACK
        self._history: list[int] = []

    # ----------------------------------------------------------------- the game
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
            if self.opponent_spec is not None:
                self.opponent = make_player(seeded_spec(self.opponent_spec, seed % (MAX_SEED + 1)))
        start = None
        if options and options.get("position") is not None:
            start = self.options.position_from(options["position"])
        game = self.game
        game.reset(start)
        self._history = []
        self.options.play_opening(game, self.np_random)
        if self.color_choice == "random":
            self.color = BLACK if self.np_random.integers(2) == 0 else 3 - BLACK
        else:
            self.color = BLACK if self.color_choice == "black" else 3 - BLACK
        reward = self._opponent_moves()  # it may have the first move
        info = self._info()
        if reward:
            info["opening_reward"] = reward
        return self._observation(), info

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        game = self.game
        if game.is_over:
            raise gymnasium.error.ResetNeeded("the game is over: call reset() before step()")
        if self.options.illegal_action == "penalty" and game.is_action(action) and not game.is_legal(action):
            game.forfeit(self.color, ILLEGAL_ACTION)  # the agent loses; the board is untouched
            info = self._info()
            info["illegal_action"] = int(action)
            return self._observation(), self.options.illegal_reward, True, False, info
        game.check(action)  # raises IllegalActionError, the game untouched, if illegal
        self._history.append(game.hash)
        pushed_off = game.step(action)
        reward = float(pushed_off) if self.options.reward == "marbles" else 0.0
        reward += self._opponent_moves()
        if game.is_over and self.options.reward == "result" and game.outcome.winner is not None:
            reward = 1.0 if game.outcome.winner == self.color else -1.0
        terminated = game.is_over and not game.truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, game.truncated, self._info()

    def _opponent_moves(self) -> float:
        """The opponent's move while it is its turn; the agent's marbles reward (−1 for a marble lost)."""
        game = self.game
        reward = 0.0
        while not game.is_over and game.side != self.color:
            if self.opponent_policy is not None:
                action = self.opponent_policy(self._observation(game.side), self._info(game.side))
            else:
                assert self.opponent is not None
                draw = DrawCounters(self.options.rules, game.plies, game.quiet)
                move = self.opponent.choose(game.position(), history=list(self._history), draw=draw)
                action = game.space.move_to_action(move)
            try:
                game.check(action)
            except IllegalActionError as exc:
                raise IllegalActionError(f"the opponent's {exc}") from None
            self._history.append(game.hash)
            if game.step(action) and self.options.reward == "marbles":
                reward -= 1.0
        return reward

    def _observation(self, color: int | None = None) -> dict[str, np.ndarray]:
        mask = self.game.mask.copy()  # zero once the game is over
        return {"observation": self.game.observe(self.color if color is None else color), "action_mask": mask}

    def _info(self, color: int | None = None) -> dict[str, Any]:
        color = self.color if color is None else color
        info: dict[str, Any] = {"color": "black" if color == BLACK else "white", "plies": self.game.plies}
        if self.game.outcome is not None:
            info["outcome"] = self.game.outcome.reason
            winner = self.game.outcome.winner
            info["winner"] = None if winner is None else ("black" if winner == BLACK else "white")
        return info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask as booleans (the method maskable-action learners call)."""
        return self.game.mask.astype(bool)

    # ----------------------------------------------------------------- for people
    def position(self) -> Position:
        return self.game.position()

    def render(self) -> str | np.ndarray | None:
        return render_frame(self.game.position(), self.render_mode)


def single_agent_env(opponent: Opponent = "engine:depth=2", color: str = "black", **options: Any) -> SingleAgentEnv:
    """The single-agent environment (see :mod:`sumito.rl.gym_env`); ``options`` as :func:`~sumito.rl.abalone_env`'s."""
    return SingleAgentEnv(opponent, color, **options)
