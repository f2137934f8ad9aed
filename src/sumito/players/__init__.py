"""Players: anything that, given a position, returns a legal move. Built from spec strings.

Importing the package registers every built-in kind (each module calls
:func:`~sumito.players.base.register` as it is imported), so that a spec can name any of them.
"""

from sumito.players import (  # noqa: F401  (imported to register their kinds)
    abla,
    alphalone,
    engine,
    greedy,
    heuristic,
    human,
    openspiel_mcts,
    perfect,
    random,
    td,
    zero,
)
from sumito.players.base import Player, PlayerSpecError, game_history, make_player, parse_spec, player_names, warm_up

__all__ = ["Player", "PlayerSpecError", "game_history", "make_player", "parse_spec", "player_names", "warm_up"]
