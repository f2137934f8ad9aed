"""The ``openspiel-mcts`` player: OpenSpiel's Monte-Carlo tree search (``MCTSBot`` with random
rollouts) on the OpenSpiel game of :mod:`sumito.rlcore.openspiel_game`.

Each move searches a fresh game that starts at the position to play (its variant, and the earlier
positions of the game for the repetition rule) and ends in a draw ``horizon`` plies later: random
rollouts in Abalone seldom push off enough marbles to end, so a rollout that has not ended by then
counts as a draw. ``sims`` simulations a move, each ``rollouts`` random games; ``uct_c`` is the
exploration constant. The search stops after its simulations, whatever the clock (``movetime`` is
ignored), or soon after :data:`sumito.stopping.STOP` is set (the protocol's ``stop``, Ctrl-C), playing the move
the simulations so far visited most. Needs OpenSpiel (``pip install 'sumito[rl]'``), imported only when a
player is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players.base import MAX_SEED, Option, PlayerBase, PlayerKind, PlayerSpecError, legal_codes, register
from sumito.rlcore.actions import action_space
from sumito.stopping import STOP

NAME = "openspiel-mcts"
OPTIONS = {
    # the first simulation evaluates the position itself and the second makes the root's children
    "sims": Option(int, 200, "MCTS simulations a move", low=2, high=100_000),
    "uct_c": Option(float, 2.0, "UCT exploration constant", low=0.0, high=100.0),
    "rollouts": Option(int, 1, "random rollouts a simulation", low=1, high=100),
    "horizon": Option(
        int, 100, "plies searched ahead (tree and rollouts) before a game counts as drawn", low=1, high=10_000
    ),
    "seed": Option(int, None, "seed of the search's random choices", low=0, high=MAX_SEED),
}
REPETITIONS = 3  # the arena's draw rule, also inside the search


@cache
def stoppable_bot(mcts: Any) -> type:
    """OpenSpiel's ``MCTSBot`` whose simulations end soon after :data:`~sumito.stopping.STOP` is set.

    OpenSpiel's loop (``mcts_search``) runs its simulations to the count and ends early only when the root is
    solved. So once ``STOP`` is set and the root has children, the tree policy marks the root solved (a draw):
    the loop ends after that simulation's backup, and the bot plays the child visited most, as after the full
    count. Nothing else reads the root's outcome, and each child keeps its own.
    """

    class StoppableMCTSBot(mcts.MCTSBot):
        def _apply_tree_policy(self, root: Any, state: Any) -> Any:
            if STOP[0] and root.children and root.outcome is None:
                root.outcome = np.zeros(2)
            return super()._apply_tree_policy(root, state)

    return StoppableMCTSBot


class OpenSpielMCTSPlayer(PlayerBase):
    def __init__(
        self, sims: int = 200, uct_c: float = 2.0, rollouts: int = 1, horizon: int = 100, seed: int | None = None
    ) -> None:
        try:  # OpenSpiel is an optional extra: imported when a player is made, not when the kind registers
            from open_spiel.python.algorithms import mcts

            from sumito.rlcore import openspiel_game
        except ImportError:
            raise PlayerSpecError(f"{NAME} needs OpenSpiel: pip install 'sumito[rl]'") from None

        self._action_space = action_space
        self._mcts = mcts
        self._bot_class = stoppable_bot(mcts)
        self._openspiel_game = openspiel_game
        self.sims, self.uct_c, self.rollouts, self.horizon, self.seed = sims, uct_c, rollouts, horizon, seed
        # two 32-bit streams (numpy's RandomState takes no bigger seed): the tree's and the rollouts'
        bot_seed, rollout_seed = np.random.SeedSequence(seed).generate_state(2).tolist()
        self._bot_rng = np.random.RandomState(bot_seed)
        self._rollout_rng = np.random.RandomState(rollout_seed)
        values = {"sims": sims, "uct_c": uct_c, "rollouts": rollouts, "horizon": horizon, "seed": seed}
        parts = [
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items() if v != OPTIONS[k].default
        ]
        self.name = NAME + (":" + ",".join(parts) if parts else "")

    def game_for(self, position: Position) -> Any:
        """The OpenSpiel game the search plays from ``position``: it starts there and is drawn ``horizon`` plies on."""
        variant = position.variant
        params = {
            "layout": position.to_string(),
            "win": variant.win_threshold,
            "inline_only": variant.inline_only,
            "max_plies": self.horizon,
            "repetitions": REPETITIONS,
        }
        return self._openspiel_game.AbaloneGame(params)

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        codes = legal_codes(position)
        if len(codes) == 1:
            return Move(int(codes[0]), position.variant.side)
        game = self.game_for(position)
        state = self._openspiel_game.state_at(game, history or ())
        evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, self._rollout_rng)
        bot = self._bot_class(game, self.uct_c, self.sims, evaluator, random_state=self._bot_rng)
        action = bot.step(state)
        return self._action_space(position.variant.side).action_to_move(action, position)


register(
    PlayerKind(
        name=NAME,
        factory=OpenSpielMCTSPlayer,
        options=OPTIONS,
        help="OpenSpiel's Monte-Carlo tree search with random rollouts (needs OpenSpiel)",
    )
)
