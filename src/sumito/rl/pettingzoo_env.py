"""Abalone as a PettingZoo AEC environment: ``sumito.rl.abalone_env(...)``.

Agents ``"black"`` and ``"white"`` take turns (the side to move of the start position first).
Each observation is a dict: ``"observation"``, the ``float32`` planes of
:class:`~sumito.rlcore.core.ArrayGame` (own, opponent, empty, colour, turn, lost marbles, repetition
count, plies left to the ply cap and to the no-push-off draw), and
``"action_mask"``, the ``int8`` legal-action mask (all zeros for the agent not to move and once
the game is over). Actions index the fixed action space of :mod:`sumito.rlcore.actions`.

Rewards (``reward=``): ``"result"`` (default) gives +1 to the winner and −1 to the loser when a
side pushes off the winning marble, 0 for a draw; ``"marbles"`` gives the Abalearn rewards, +1 to
the pusher and −1 to the loser of every marble pushed off (the winning push-off included), so an
agent's return is its marble difference. The game ends by the engine's rules
(:func:`sumito.games.abalone.game.judge`): a win is a termination, a repetition or a side without moves a
drawn termination, the ply cap (``max_plies``) a truncation.

An action of the action space that is not legal in the position (``illegal_action=``):
``"penalty"`` (default) ends the game, with ``illegal_reward`` (−1) for the agent that played it
and 0 for the other, ``infos[agent]["illegal_action"]`` the action and the outcome
``"illegal-action"`` — PettingZoo's ``TerminateIllegalWrapper`` convention, which its classic games
(chess, connect four) play by; ``"error"`` raises :class:`~sumito.rlcore.core.IllegalActionError`
(a ``ValueError``) naming the action and its move, and the game is left as it was. Something that
is no action of the space (``-1``, ``n``, ``"a1a2"``) always raises it.

Abalone is turn-based, so PettingZoo's AEC-to-parallel conversion does not apply (a parallel step
would take White's action before Black's move is made): ``metadata["is_parallelizable"]`` is
``False``, as in PettingZoo's chess and connect four, and ``aec_to_parallel`` refuses it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import OrderEnforcingWrapper

from sumito.games.abalone import BLACK, DrawRules, Position
from sumito.rl.render import render_frame
from sumito.rl.spaces import observation_space
from sumito.rlcore.core import ILLEGAL_ACTION, ArrayGame
from sumito.rlcore.options import EnvOptions

AGENTS = ("black", "white")


class AbaloneEnv(AECEnv):
    """The AEC environment (build it with :func:`abalone_env`; see the module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "sumito_abalone_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(self, options: EnvOptions) -> None:
        super().__init__()
        self.options = options
        self.render_mode = options.render_mode
        self.game = ArrayGame(options.start_position(), options.rules)
        self.possible_agents = list(AGENTS)
        n = self.game.space.n
        space = observation_space(self.game)
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = {agent: spaces.Discrete(n) for agent in AGENTS}
        self._no_actions = np.zeros(n, dtype=np.int8)
        self._rng = np.random.default_rng()
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- the game
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game from the start position (after ``opening_plies`` random plies drawn from ``seed``);
        ``options={"position": Position or position string}`` starts from that position instead."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        start = None
        if options and options.get("position") is not None:
            start = self.options.position_from(options["position"])
        self.game.reset(start)
        self.options.play_opening(self.game, self._rng)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self.game.side - 1]
        if self.game.is_over:  # a start position that is already over (an opening that ended it)
            self._finish()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        for name in AGENTS:
            self.rewards[name] = 0.0
        self._cumulative_rewards[agent] = 0.0
        if self.options.illegal_action == "penalty" and game.is_action(action) and not game.is_legal(action):
            game.forfeit(game.side, ILLEGAL_ACTION)  # the board untouched; no action legal any more
            self.rewards[agent] = self.options.illegal_reward
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent]["illegal_action"] = int(action)
            for name in AGENTS:
                self.infos[name]["outcome"] = ILLEGAL_ACTION
                self.infos[name]["winner"] = AGENTS[game.outcome.winner - 1]
            self._accumulate_rewards()
            return
        pushed_off = game.step(action)  # raises IllegalActionError, the game untouched, if illegal
        other = AGENTS[game.side - 1]
        if pushed_off and self.options.reward == "marbles":
            self.rewards[agent] = 1.0
            self.rewards[other] = -1.0
        self.agent_selection = other
        if game.is_over:
            self._finish()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        game = self.game
        outcome = game.outcome
        assert outcome is not None
        if outcome.winner is not None and self.options.reward == "result":
            winner = AGENTS[outcome.winner - 1]
            loser = AGENTS[2 - outcome.winner]
            self.rewards[winner] = 1.0
            self.rewards[loser] = -1.0
        done = self.truncations if game.truncated else self.terminations
        for agent in AGENTS:
            done[agent] = True
            self.infos[agent]["outcome"] = outcome.reason
            self.infos[agent]["winner"] = None if outcome.winner is None else AGENTS[outcome.winner - 1]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        color = BLACK if agent == "black" else 3 - BLACK
        to_move = self.game.side == color and not self.game.is_over
        return {"observation": self.game.observe(color),
                "action_mask": self.game.mask.copy() if to_move else self._no_actions.copy()}

    # ----------------------------------------------------------------- for people
    def position(self) -> Position:
        """The current position (the engine's value type)."""
        return self.game.position()

    def render(self) -> str | np.ndarray | None:
        return render_frame(self.game.position(), self.render_mode)

    def close(self) -> None:
        pass


def abalone_env(
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
) -> OrderEnforcingWrapper:
    """Abalone as a PettingZoo AEC environment (see :mod:`sumito.rl.pettingzoo_env`), wrapped as
    PettingZoo's own environments are in its order-enforcing wrapper (``.unwrapped`` is the
    :class:`AbaloneEnv`, a little faster).

    ``layout`` names a start (``sumito layouts``) or is a position string; ``win`` is the marbles
    to push off (the layout's default: 6 standard, 5 small, 2 mini); ``inline_only`` the reduced
    game of the Alphalone report; ``max_plies`` and ``repetitions`` the draw rules (``rules`` gives
    them all at once); ``opening_plies`` random plies played at every reset (from the reset's seed),
    for varied starts.
    """
    options = EnvOptions.build(layout=layout, max_plies=max_plies, win=win, inline_only=inline_only,
                               repetitions=repetitions, reward=reward, opening_plies=opening_plies,
                               illegal_action=illegal_action, illegal_reward=illegal_reward,
                               render_mode=render_mode, render_modes=AbaloneEnv.metadata["render_modes"], rules=rules)
    return OrderEnforcingWrapper(AbaloneEnv(options))
