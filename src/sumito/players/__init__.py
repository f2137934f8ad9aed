"""Players: anything that, given a position, returns a legal move. Built from spec strings."""

from sumito.players.base import Player, PlayerSpecError, game_history, make_player, parse_spec, player_names

__all__ = ["Player", "PlayerSpecError", "game_history", "make_player", "parse_spec", "player_names"]
