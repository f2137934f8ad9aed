"""Time management: how much of a clock to spend on one move.

Used by the engine protocol (``go wtime ... winc ...``) and by the arena's clocks (``--tc 60+1``):
one function, so that a time control means the same to every caller. The rule, as in chess
engines: spend the remaining time over the moves still expected (``movestogo``, else an estimate
from an Abalone game's length), add most of the increment, keep a reserve so that the clock never
falls below it, and never plan more than a fraction of what is left.
"""

from __future__ import annotations

#: an Abalone game between engines lasts about 60-120 moves a side; plan for this many more
EXPECTED_MOVES_LEFT = 40
#: always keep this much on the clock (seconds) for overhead: process start-up, the reply itself
RESERVE = 0.05
#: never spend more than this share of the remaining time on one move
MAX_SHARE = 0.5


def move_time(remaining: float, increment: float = 0.0, moves_to_go: int | None = None) -> float:
    """Seconds to think about this move with ``remaining`` seconds on the clock, ``increment`` added
    after each move and, if known, ``moves_to_go`` moves until the next time control."""
    if remaining <= 0:
        return 0.0
    moves = moves_to_go if moves_to_go and moves_to_go > 0 else EXPECTED_MOVES_LEFT
    usable = max(remaining - RESERVE, 0.0)
    plan = usable / moves + 0.9 * increment
    return max(0.0, min(plan, MAX_SHARE * usable))
