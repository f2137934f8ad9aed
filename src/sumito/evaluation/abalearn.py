"""The Abalearn encodings' compiled kernel (Campos & Langlois 2003, section 5): one board, from
one colour's point of view, into one row of network inputs. It lives below ``evaluation`` so
that a search can evaluate positions with a trained network (:mod:`sumito.models.learned`);
:mod:`sumito.models.abalone_encodings` documents the inputs and batches it for training.
"""

from __future__ import annotations

import numpy as np

from sumito.jit import njit

ABALEARN1 = 0
ABALEARN2 = 1
ABALEARN3 = 2
# Abalearn 2's rings (its Figure 1, which defines them, has no text in either version of the paper): a
# kernel ``kind`` is ``encoding + 3 * split``, the split one of these (centre up to ring C, border from ring
# radius - B; the middle between). Split 0 is ours and the default.
SPLITS = ("", "-c012", "-b34")  # name suffixes: rings 0-1 | 2-3 | 4, rings 0-2 | 3 | 4, rings 0-1 | 2 | 3-4
_CENTRE_MAX = (1, 2, 1)
_BORDER_FROM_EDGE = (0, 0, 1)

OFF = 3  # the padded grid's off-board sentinel


@njit(cache=True, inline="always")
def _encode_into(board, me, lost_me, lost_op, cells, ring, offsets, edge_cells, marbles, win, kind, row):
    """Write the encoding ``kind`` of ``board`` for ``me`` into ``row`` (float64, long enough).

    The cell loops are branch-free (counts add 0 or 1), since a board's contents are too
    irregular for branch prediction.
    """
    opp = 3 - me
    inv_win = 1.0 / win
    n_cells = cells.shape[0]
    split = kind // 3
    kind = kind % 3
    if kind == 0:
        for i in range(n_cells):
            v = board[cells[i]]
            row[i] = np.float64(v == me) - np.float64(v == opp)
        row[n_cells] = lost_me * inv_win
        row[n_cells + 1] = lost_op * inv_win
        return
    inv_marbles = 1.0 / marbles
    radius = ring[cells[0]]  # cells[0] is a1, a corner: the outermost ring
    centre_max = _CENTRE_MAX[split]
    border_from = radius - _BORDER_FROM_EDGE[split]
    mn = mc = mb = on = oc = ob = 0  # own / opponent marbles: all, in the centre, on the border
    mdist = odist = mprot = oprot = 0
    # Two copies of the cell loop on purpose: one loop with an "if Abalearn 3" inside measured
    # 30-35% slower for both encodings (bench/bench_encodings.py); the compiler does not split it.
    if kind == 1:
        for i in range(n_cells):
            c = cells[i]
            v = board[c]
            r = ring[c]
            m = np.int64(v == me)
            o = np.int64(v == opp)
            border = np.int64(r >= border_from)
            centre = np.int64(r <= centre_max) & (1 - border)  # the border wins where they overlap (small boards)
            mn += m
            mc += m & centre
            mb += m & border
            on += o
            oc += o & centre
            ob += o & border
    else:
        for i in range(n_cells):
            c = cells[i]
            v = board[c]
            r = ring[c]
            m = np.int64(v == me)
            o = np.int64(v == opp)
            border = np.int64(r >= border_from)
            centre = np.int64(r <= centre_max) & (1 - border)  # the border wins where they overlap (small boards)
            mn += m
            mc += m & centre
            mb += m & border
            on += o
            oc += o & centre
            ob += o & border
            mdist += m * r
            odist += o * r
            # every neighbour the same colour or off the board (meaningless for an empty cell,
            # which m and o mask out)
            covered = np.int64(1)
            for d in range(6):
                w = board[c + offsets[d]]
                covered &= np.int64(w == v) | np.int64(w == OFF)
            mprot += m & covered
            oprot += o & covered
    row[0] = mc * inv_marbles
    row[1] = (mn - mc - mb) * inv_marbles
    row[2] = mb * inv_marbles
    row[3] = lost_me * inv_win
    row[4] = oc * inv_marbles
    row[5] = (on - oc - ob) * inv_marbles
    row[6] = ob * inv_marbles
    row[7] = lost_op * inv_win
    if kind == 1:
        return
    # threatened: edge marbles the other colour can push off now (generate_push_offs, counted once)
    mthr = othr = 0
    for j in range(edge_cells.shape[0]):
        e = edge_cells[j]
        v = board[e]
        if v != me and v != opp:
            continue
        a = 3 - v  # the attacker
        for d in range(6):
            step = offsets[d]
            if board[e + step] != OFF:
                continue
            p = 1  # the defending line, from the edge marble inwards
            c = e - step
            while board[c] == v:
                p += 1
                c -= step
            if p > 2:
                continue
            q = 0  # the attacking line behind it; it needs more marbles than it pushes (at most 3)
            while q <= p and board[c] == a:
                q += 1
                c -= step
            if q > p:
                if v == me:
                    mthr += 1
                else:
                    othr += 1
                break
    row[8] = mprot * inv_marbles
    row[9] = mdist / (mn * radius) if mn > 0 else 0.0
    row[10] = mthr * inv_marbles
    row[11] = oprot * inv_marbles
    row[12] = odist / (on * radius) if on > 0 else 0.0
    row[13] = othr * inv_marbles
