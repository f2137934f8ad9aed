"""Numbering every position of a small board: a combinatorial index of placements, relative to the side to move.

A solved game holds one value for each position that can occur while the game goes on. The rules are the
same for both colours, so a position is stored as *the side to move's marbles* and *the other side's
marbles* (the colour swap): Black to move on a board and White to move on the board with the colours
exchanged are one entry. While the game goes on a side has lost fewer than ``win`` marbles, so it has
``marbles - win + 1`` to ``marbles`` on the board; the lost counts follow from the placement.

The entries fall into blocks by (marbles of the side to move on the board, marbles of the other side);
inside a block, entry = rank of the mover's cells among all sets of that size (colex order over the cells
in ``geometry.cells`` order) times the number of placements of the other side, plus the rank of the other
side's cells among the cells left free (also colex). :func:`rank` and :func:`unrank` are exact inverses;
the tests check it over whole blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations

import numpy as np

from sumito.games.abalone.geometry import EMPTY, geometry
from sumito.games.abalone.variants import Variant
from sumito.jit import bit_count, lowest_bit, njit


@dataclass(frozen=True)
class Space:
    """The index space of one variant: its blocks and the tables :func:`rank` and :func:`unrank` use."""

    variant: Variant
    n_cells: int
    low: int  # fewest marbles a side can have on the board while the game goes on
    binom: np.ndarray  # binom[n, k] = C(n, k), int64
    block_start: np.ndarray  # block b's first entry; b = (marbles - mover) * win + (marbles - other)

    @cached_property
    def subsets(self) -> np.ndarray:
        """``subsets[k, r]``: the ``k``-set of colex rank ``r`` as a bitmask of places (bit ``i``: the ``i``-th
        cell, or the ``i``-th free cell), for every ``k`` up to the marbles and ``r`` below C(cells, k). Colex
        ranks do not depend on how many places there are, so one table unranks both sides
        (:func:`unrank_bits`)."""
        m = self.variant.marbles
        out = np.zeros((m + 1, int(self.binom[self.n_cells, :m + 1].max())), dtype=np.int64)
        for k in range(1, m + 1):
            ordered = sorted(combinations(range(self.n_cells), k), key=lambda c: c[::-1])  # colex order
            out[k, :len(ordered)] = [sum(1 << i for i in c) for c in ordered]
        return out

    @property
    def size(self) -> int:
        return int(self.block_start[-1])

    def block_counts(self) -> list[tuple[int, int, int, int]]:
        """(mover, other, first entry, entries) of each block, in index order."""
        v = self.variant
        out = []
        for a in range(v.marbles, self.low - 1, -1):
            for b in range(v.marbles, self.low - 1, -1):
                blk = (v.marbles - a) * v.win_threshold + (v.marbles - b)
                start = int(self.block_start[blk])
                out.append((a, b, start, int(self.block_start[blk + 1]) - start))
        return out


@cache
def space(variant: Variant) -> Space:
    """The index space of ``variant`` (any board side; sizes grow fast past the mini board)."""
    geo = geometry(variant.side)
    n = geo.n_cells
    m, w = variant.marbles, variant.win_threshold
    low = m - w + 1
    binom = np.zeros((n + 1, m + 2), dtype=np.int64)
    for i in range(n + 1):
        binom[i, 0] = 1
        for k in range(1, min(i, m + 1) + 1):
            binom[i, k] = binom[i - 1, k - 1] + (binom[i - 1, k] if k <= i - 1 else 0)
    starts = [0]
    for a in range(m, low - 1, -1):
        for b in range(m, low - 1, -1):
            count = int(binom[n, a]) * int(binom[n - a, b]) if a + b <= n else 0
            starts.append(starts[-1] + count)
    return Space(variant, n, low, binom, np.array(starts, dtype=np.int64))


@njit(cache=True, nogil=True, inline="always")
def rank(grid, mover, cells, binom, block_start, marbles, win):
    """The entry of the position on ``grid`` with ``mover`` (1 or 2) to move."""
    other = 3 - mover
    r1 = 0
    r2 = 0
    cm = 0
    co = 0
    for i in range(cells.shape[0]):
        v = grid[cells[i]]
        if v == mover:
            cm += 1
            r1 += binom[i, cm]
        elif v == other:
            co += 1
            r2 += binom[i - cm, co]
    blk = (marbles - cm) * win + (marbles - co)
    return block_start[blk] + r1 * binom[cells.shape[0] - cm, co] + r2


@njit(cache=True, nogil=True, inline="always")
def _parts(index, n, binom, block_start, marbles, win):
    """Entry ``index``'s block and ranks: the mover's marble count, the other side's, the rank of the
    mover's set among the ``n`` cells and the other side's among the cells left free."""
    blk = 0
    while block_start[blk + 1] <= index:
        blk += 1
    a = marbles - blk // win
    b = marbles - blk % win
    local = index - block_start[blk]
    per = binom[n - a, b]
    r1 = local // per
    return a, b, r1, local - r1 * per


@njit(cache=True, nogil=True)
def unrank(index, grid, cells, binom, block_start, marbles, win, free):
    """Set ``grid``'s cells to entry ``index``: the side to move's marbles as 1, the other side's as 2.
    ``free`` is scratch space of at least as many entries as cells. Returns the two marble counts."""
    n = cells.shape[0]
    a, b, r1, r2 = _parts(index, n, binom, block_start, marbles, win)
    for i in range(n):
        grid[cells[i]] = EMPTY
    # colex unrank of the mover's set: the largest cell c with C(c, j) <= r, for j = a .. 1
    c = n - 1
    for j in range(a, 0, -1):
        while binom[c, j] > r1:
            c -= 1
        grid[cells[c]] = 1
        r1 -= binom[c, j]
        c -= 1
    # the other side's set, ranked over the cells left free, in the same order
    k = 0
    for i in range(n):
        if grid[cells[i]] != 1:
            free[k] = i
            k += 1
    c = n - a - 1
    for j in range(b, 0, -1):
        while binom[c, j] > r2:
            c -= 1
        grid[cells[free[c]]] = 2
        r2 -= binom[c, j]
        c -= 1
    return a, b


@njit(cache=True, nogil=True, inline="always")
def rank_bits(mover, other, n_mover, n_other, cell_of_grid, n_cells, binom, block_start, marbles, win):
    """:func:`rank` of a position held as two bitboards (bit ``g`` set: a marble on grid cell ``g``): the
    mover's and the other side's, with their marble counts. The cells' order in ``geometry.cells`` is the
    grid's, so the cells before cell ``g`` are the set bits below bit ``g``: the loops run over the marbles
    (a few) instead of the cells."""
    r1 = 0
    j = 0
    x = mover
    while x:
        j += 1
        r1 += binom[cell_of_grid[lowest_bit(x)], j]
        x &= x - 1
    r2 = 0
    j = 0
    x = other
    while x:
        j += 1
        g = lowest_bit(x)
        # the other side's cells are ranked among the cells the mover leaves free
        r2 += binom[cell_of_grid[g] - bit_count(mover & ((1 << g) - 1)), j]
        x &= x - 1
    blk = (marbles - n_mover) * win + (marbles - n_other)
    return block_start[blk] + r1 * binom[n_cells - n_mover, n_other] + r2


@njit(cache=True, nogil=True, inline="always")
def unrank_bits(index, cells, binom, block_start, marbles, win, subsets, memo, free_cells):
    """Entry ``index`` as bitboards (:func:`rank_bits`): the side to move's marbles, the other side's and
    their two counts. ``memo`` (two ``int64``, first ``-1``) and ``free_cells`` (as many as cells) keep the
    mover's set of the last call: entries in index order share it for thousands of entries at a time."""
    n = cells.shape[0]
    a, b, r1, r2 = _parts(index, n, binom, block_start, marbles, win)
    key = r1 * (marbles + 1) + a
    if memo[0] != key:
        memo[0] = key
        chosen = subsets[a, r1]
        mover = 0
        k = 0
        for i in range(n):
            if (chosen >> i) & 1:
                mover |= 1 << cells[i]
            else:
                free_cells[k] = cells[i]
                k += 1
        memo[1] = mover
    # the other side's set is ranked over the cells the mover leaves free
    chosen = subsets[b, r2]
    other = 0
    while chosen:
        other |= 1 << free_cells[lowest_bit(chosen)]
        chosen &= chosen - 1
    return memo[1], other, a, b
