"""GNU Backgammon position IDs: the 14-character text key that backgammon programs exchange.

They live in :mod:`sumito.games.backgammon.board` (the board's ``repr`` shows its ID, and the ID
decodes to a board, so the two are one module); this module re-exports them.
"""

from sumito.games.backgammon.board import START_ID, PositionIdError, from_position_id, position_id, position_key

__all__ = ["START_ID", "PositionIdError", "from_position_id", "position_id", "position_key"]
