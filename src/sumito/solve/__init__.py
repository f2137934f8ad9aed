"""The small boards solved exactly: every position's value under perfect play.

:mod:`.index` numbers the positions of a board, :mod:`.retrograde` computes their values in compiled passes,
:mod:`.solver` drives it with checkpoints, and :mod:`.table` holds a solved board as a value to look positions up
in (``SolvedTable.for_variant``), built once per variant under a lock.
"""
