"""The start position that :mod:`sumito.cliargs`'s options name, read (this loads the rules' kernels)."""

from __future__ import annotations

import argparse

from sumito.games.abalone import NotationError, Position
from sumito.games.abalone.interop import from_playstrategy_fen, is_playstrategy_fen, parse_move_as
from sumito.games.abalone.position import positions_after


def position_from_args(args: argparse.Namespace) -> Position:
    """The start position the options name, with the variant options applied and ``--moves`` played."""
    opts = {"win_threshold": args.win, "inline_only": True if args.inline_only else None}
    if args.position is not None:
        base = read_position(args.position)
        variant = base.variant.with_options(**opts)
        start = read_position(args.position, variant)
    else:
        start = Position.start(args.layout or "standard", **opts)
    moves = getattr(args, "moves", [])
    notation = getattr(args, "notation", "sumito")
    if notation == "sumito":
        return positions_after(start, moves)
    pos = start
    for i, text in enumerate(moves, 1):
        try:
            move = parse_move_as(pos, text, notation)
        except NotationError as exc:
            raise type(exc)(f"move {i}: {exc}") from None
        pos = pos.play(move)
    return pos


def read_position(text: str, variant=None) -> Position:
    """A Sumito position string or a PlayStrategy FEN, told apart by their form (5 fields and b/w marbles,
    or 6 fields and S/s marbles; see :func:`~sumito.games.abalone.interop.is_playstrategy_fen`)."""
    if is_playstrategy_fen(text):
        return from_playstrategy_fen(text, variant)
    return Position.from_string(text, variant)
