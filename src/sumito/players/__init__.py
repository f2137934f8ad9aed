"""Players: anything that, given a position, returns a legal move. Built from spec strings."""

from sumito.players.base import Player, PlayerSpecError, make_player, parse_spec, player_names

__all__ = ["Player", "PlayerSpecError", "make_player", "parse_spec", "player_names"]
