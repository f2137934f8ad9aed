"""Wiering's (2010) per-module input sets for backgammon: 68 endgame, 277 race and 393 general inputs.

**What the paper gives and what is ours.** Wiering (2010, section 4.1 "Input features") gives only the
counts: endgame 68 = 56 raw + 12 higher-level; race 277 = the same 68 + 192 raw board inputs + 17
higher-level; general 393 = 248 raw + 145 higher-level, "including for example the probabilities that
stones can be hit by the opponent in the next move". Every individual input below — which raw units,
which features, their scaling — is **our choice**, made to match those counts exactly.

**Input.** Every encoder takes a batch of afterstates as generated (int8 ``[n, 28]``, the view of the side
that just moved — "the mover" — not swapped; the opponent is on roll next; layout of
:mod:`sumito.games.backgammon.board`) and returns float64 ``[n, K]``. Per-side blocks come in the order
mover, opponent; each side's points are in **its own** numbering (1..24, home board 1..6, it moves
towards 1), so encoding ``swap_array(board)`` exchanges the two blocks. The only inputs that are not in a
per-side block are the "shared" ones, noted below. Values lie in about [0, 1]; a few counts (pips,
stacks, blots) can exceed 1 a little in extreme positions, and the shared race pip difference is signed.

Tesauro units of a count ``n``: ``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` when ``n > 3``.
Pips: the side's pip count (bar = 25). "Made" point: two or more of the side's checkers.

**Endgame (``N_ENDGAME`` = 68)** — side blocks ``S`` = 0 (mover) and 28 (opponent) for the raw inputs, ``H``
= 56 (mover) and 62 (opponent) for the features:

=================  =============================================================================
``S + 0 .. 23``    home points 1..6 of the side, 4 Tesauro units each (point ``p`` at ``S + 4(p-1)``)
``S + 24``         checkers borne off / 15
``S + 25 .. 27``   borne off ``>= 5``, ``>= 10``, ``>= 14`` (a thermometer of the bear-off progress)
``H + 0``          pips of the checkers in the home board / 90
``H + 1``          checkers not borne off / 15
``H + 2``          estimated rolls to finish, ``max(pips / 8.17, left / 2.33) / 10`` (all checkers' pips;
                   8.17 = mean pips a roll, 2.33 = mean checkers borne off a roll without wastage)
``H + 3``          checkers on the 4, 5 and 6 points / 15 (the slow end of the home board)
``H + 4``          home points occupied / 6 (gaps waste pips)
``H + 5``          probability of bearing all the side's remaining checkers off in its next roll
                   (exact: non-doubles clear at most 2 checkers, doubles ``d`` clear them iff
                   ``sum(ceil(p / d)) <= 4``; 0 while a checker is outside the home board)
=================  =============================================================================

**Race (``N_RACE`` = 277):** ``[0:68]`` the endgame inputs above, computed the same way (the raw part then
describes only the home boards and the borne-off checkers); ``[68:164]`` the mover's points 1..24 and
``[164:260]`` the opponent's, 4 Tesauro units each (point ``p`` at ``base + 4(p-1)``); then the
features, side blocks ``R`` = 260 (mover) and 268 (opponent), plus one shared input:

=================  =============================================================================
``R + 0``          pips / 167
``R + 1``          checkers not yet in the home board / 15
``R + 2``          crossovers still needed to bring every checker home / 45 (quadrant 1..6 → 0,
                   7..12 → 1, 13..18 → 2, 19..24 → 3, bar → 4)
``R + 3``          pips still to travel to reach the home board, ``sum(max(p - 6, 0))`` / 90
``R + 4``          checkers on the 1, 2 and 3 points / 15 (deep checkers, wastage in the bear-off)
``R + 5``          checkers on points 19..24 / 15 (far back)
``R + 6``          points occupied / 15 (distribution)
``R + 7``          stacking, ``sum(max(n - 3, 0))`` over points / 15
``276`` (shared)   (opponent's pips − mover's pips) / 100: positive when the mover leads
=================  =============================================================================

**General (``N_GENERAL`` = 393):** raw side blocks ``G`` = 0 (mover) and 124 (opponent), feature blocks
``F`` = 248 (mover) and 320 (opponent), and one shared input:

=================  =============================================================================
``G + 0 .. 119``   points 1..24, 5 units each (point ``p`` at ``G + 5(p-1)``): ``n == 1`` (a blot),
                   ``n >= 2``, ``n >= 3``, ``n >= 4``, ``(n - 4) / 2`` when ``n > 4``
``G + 120, 121``   bar ``>= 1``, ``(bar - 1) / 2`` when ``bar > 1``
``G + 122, 123``   borne off ``>= 1`` (gammon saved), borne off / 15
``F + 0 .. 23``    for each of the side's points 1..24: the rolls out of 36 on which the other side,
                   on roll, can hit a blot of this side there, / 36 (0 where there is no blot); see
                   :func:`hit_rolls` — for the mover's block the opponent really is on roll, the
                   opponent's block is the same count as if the mover were on roll
``F + 24``         rolls on which at least one of the side's blots can be hit / 36
``F + 25``         blots / 5
``F + 26``         hit exposure, ``sum(hits(p) / 36 * (25 - p) / 25)`` (pips a hit costs, weighted)
``F + 27``         most rolls that hit any single blot / 36
``F + 28``         blots that can be hit at all / 5
``F + 29``         blots within direct range (1..6 pips) of an opposing checker or of the other
                   side's bar / 5
``F + 30``         blots in the home board / 6
``F + 31``         pips / 167
``F + 32``         (other side's pips − this side's pips) / 100
``F + 33 .. 36``   checkers on points 1..6, 7..12, 13..18, 19..24, each / 15
``F + 37``         points occupied / 15
``F + 38``         stacking, ``sum(max(n - 3, 0))`` / 15
``F + 39``         checkers on the 1, 2 and 3 points / 15
``F + 40 .. 43``   made points among 1..6, 7..12, 13..18, 19..24 (anchors), each / 6
``F + 44``         advanced anchor: the 20 or the 21 point made (the other side's 5 or 4 point)
``F + 45``         longest prime (run of consecutive made points) / 6
``F + 46``         lowest point of that prime / 24 (0 without a made point)
``F + 47``         checkers (bar included) behind the other side's longest prime, when it is 3 or more
                   points long, / 15
``F + 48``         escape rolls of the side's rearmost checker / 36 (see below)
``F + 49``         the rearmost checker's point / 25 (bar = 25, 0 when all are off)
``F + 50 .. 61``   escape rolls of a (hypothetical) checker on each of the points 13..24 / 36
``F + 62``         entering rolls from the bar, ``(36 - k^2) / 36``, ``k`` the other side's made home points
``F + 63``         dancing: ``k^2 / 36`` when the side has a checker on the bar, else 0
``F + 64``         closed board: all six home points made
``F + 65``         checkers still in contact (an opposing checker lies in front) / 15
``F + 66``         (rearmost checker − the other side's rearmost checker, both in this side's
                   numbering) / 24: negative once the sides have passed each other
``F + 67``         pips of the checkers still in contact / 167
``F + 68``         home-board gaps: unmade home points below the highest made home point / 5
``F + 69``         coverage: points 1..24 one of the side's checkers reaches with a single die / 24
``F + 70``         the side leads in the race (fewer pips)
``F + 71``         spare checkers (beyond two) on points 1..12 / 15 (builders and spares)
``392`` (shared)   total pips of both sides / 334 (game stage)
=================  =============================================================================

*Escape rolls* of a checker on point ``s``: the other side's made points on ``max(7, s - 12) .. s - 1``
form the blockade (points it holds in this side's home board are left out: nothing jumps past those);
the checker escapes on a roll when it can move, by itself (one die, both dice through an open
intermediate point, up to four steps with doubles), to a point below the lowest of them (anywhere, when
there is no such point). Other checkers and the bar-first rule are ignored.

*Hit rolls* (:func:`hit_rolls`) are exact: a roll counts for a blot when some **legal play** of the hitter
hits it (passing through it or ending on it) — points held by two or more of the blot's owner are closed;
combination shots need an open intermediate point; doubles move up to four steps; checkers on the bar
enter first (entering can hit; another checker hits only with the dice left after all have entered); and
a play must use as many dice as possible (the larger die when only one can be played). The fast path
counts shots with bit masks and proves with cheap tests that each shot extends to a play using the most
dice; the few rolls it cannot prove (crowded or bearing-off positions) go to
:func:`~sumito.games.backgammon.kernels.generate_plays`. The tests compare every count with the legal plays.
"""

from __future__ import annotations

import numpy as np

from sumito.games.backgammon.kernels import generate_plays, rearmost_checkers
from sumito.jit import njit
from sumito.models.backgammon.learning import tesauro_units as _tesauro

ENCODING = "wiering"
N_ENDGAME = 68
N_RACE = 277
N_GENERAL = 393
N_INPUTS_BY_CLASS = (N_ENDGAME, N_RACE, N_GENERAL)

_VALID = np.int64(0x1FFFFFE)  # bits 1..24: the board points in a side's own numbering
_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)


@njit(cache=True)
def _views(board: np.ndarray, views: np.ndarray) -> None:
    """``views[0]`` the board as given (mover's view), ``views[1]`` the opponent's view (``swap_array``)."""
    for i in range(24):
        views[0, i] = board[i]
        views[1, i] = -board[23 - i]
    views[0, 24], views[0, 25], views[0, 26], views[0, 27] = board[24], board[25], board[26], board[27]
    views[1, 24], views[1, 25], views[1, 26], views[1, 27] = board[25], board[24], board[27], board[26]


@njit(cache=True)
def _popcount(x: np.int64) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _landing(src: np.int64, ok: np.int64, d1: int, d2: int, steps: int) -> np.int64:
    """Points (bit mask) the checkers in ``src`` reach alone with the roll, moving only through ``ok``."""
    if d1 == d2:
        land = np.int64(0)
        cur = src
        for _ in range(steps):
            cur = (cur >> d1) & ok
            land |= cur
        return land
    a = (src >> d1) & ok
    b = (src >> d2) & ok
    return a | b | (((a >> d2) | (b >> d1)) & ok)


@njit(cache=True)
def _chain_capacity(view: np.ndarray, src: np.int64, ok: np.int64, d: int, steps: int, entered: int, e: int) -> int:
    """Steps of ``d`` the checkers could take one after the other, each alone (at most ``steps`` each)."""
    total = 0
    for p in range(1, 25):
        if not (src >> p) & 1:
            continue
        chain = 0
        t = p - d
        while chain < steps and t >= 1 and (ok >> t) & 1:
            chain += 1
            t -= d
        count = max(view[p - 1], 0)
        if p == e:
            count += entered
        total += count * chain
    return total


@njit(cache=True)
def _exact_hits(view: np.ndarray, d1: int, d2: int, blots: np.int64) -> np.int64:
    """The blots (bit mask, hitter's numbering) that some legal play of the roll hits, from the plays."""
    board = np.empty(28, dtype=np.int8)
    for i in range(28):
        board[i] = view[i]
    afters = generate_plays(board, d1, d2)[0]
    hit = np.int64(0)
    for t in range(1, 25):
        if (blots >> t) & 1:
            for row in range(afters.shape[0]):
                if afters[row, t - 1] >= 0:  # the blot's checker can only have left by being hit
                    hit |= np.int64(1) << t
                    break
    return hit


@njit(cache=True)
def _hit_side(view: np.ndarray, counts: np.ndarray) -> int:
    """Hits on the blots of the side *not* to move in ``view`` (a side's own view, that side on roll).

    Adds the rolls (of 36) hitting each blot into ``counts`` (indexed by the blot owner's point - 1) and
    returns the rolls on which at least one blot can be hit.

    The bit-mask shots below count every hit that some sequence of single moves reaches; such a sequence
    is a legal play whenever it can be completed to use as many dice as the roll allows. The cheap tests
    ``suspect`` prove that for almost every roll; the rest go to the move generator (rare: crowded or
    bearing-off positions), so the counts are exact.
    """
    src = np.int64(0)
    blocked = np.int64(0)
    blots = np.int64(0)
    for i in range(24):
        c = view[i]
        bit = np.int64(1) << (i + 1)
        if c > 0:
            src |= bit
        elif c == -1:
            blots |= bit
        elif c <= -2:
            blocked |= bit
    if blots == 0:
        return 0
    ok = _VALID & ~blocked
    bar = view[24]
    any_hit = 0
    for k in range(21):
        d1 = _ROLLS[k, 0]
        d2 = _ROLLS[k, 1]
        w = 1 if d1 == d2 else 2
        land = np.int64(0)
        suspect = False
        if d1 == d2:
            entry = np.int64(0)
            steps = 4
            if bar > 0:
                entry = (np.int64(1) << (25 - d1)) & ok
                steps = 4 - bar
            if bar == 0 or entry != 0:
                land = entry
                if steps > 0:
                    moved = _landing(src | entry, ok, d1, d1, steps)
                    land |= moved
                    # entering is in every play; a hit k steps into a move is legal when the other
                    # checkers can take the steps left, which 2 * steps - 1 steps of capacity guarantee
                    if moved & blots & ~entry and (
                        _chain_capacity(view, src | entry, ok, d1, steps, bar, 25 - d1) < 2 * steps - 1
                    ):
                        suspect = True
        elif bar >= 2:
            # each die enters a checker or is unplayable whatever else happens: every entry is legal
            land = ((np.int64(1) << (25 - d1)) | (np.int64(1) << (25 - d2))) & ok
        elif bar == 1:
            for first, second in ((d1, d2), (d2, d1)):
                entry = (np.int64(1) << (25 - first)) & ok
                if entry != 0:
                    after = ((src | entry) >> second) & ok
                    land |= entry | after
                    if entry & blots and after == 0:
                        suspect = True  # the hit uses one die: legal only if no play uses both
        else:
            a = (src >> d1) & ok
            b = (src >> d2) & ok
            combo = ((a >> d2) | (b >> d1)) & ok
            land = a | b | combo
            direct = land & blots & ~combo  # a combination shot uses both dice, so it is always legal
            for q in range(1, 25):
                if not (direct >> q) & 1:
                    continue
                legal = False
                for first, second in ((d1, d2), (d2, d1)):
                    s = q + first
                    if s <= 24 and view[s - 1] > 0:
                        rest = src | (np.int64(1) << q)
                        if view[s - 1] == 1:
                            rest &= ~(np.int64(1) << s)
                        if (rest >> second) & ok:
                            legal = True  # the hitting checker or another one plays the other die
                if not legal:
                    suspect = True
        hit = land & blots
        if hit == 0:
            continue
        if suspect:
            hit = _exact_hits(view, d1, d2, blots)
            if hit == 0:
                continue
        any_hit += w
        for t in range(1, 25):
            if (hit >> t) & 1:
                counts[24 - t] += w  # the hitter's point t is the owner's 25 - t
    return any_hit


@njit(cache=True)
def _hit_rolls_views(views: np.ndarray, counts: np.ndarray, anys: np.ndarray) -> None:
    counts[:, :] = 0
    anys[0] = _hit_side(views[1], counts[0])  # the opponent (on roll) hits the mover's blots
    anys[1] = _hit_side(views[0], counts[1])


@njit(cache=True)
def hit_rolls(board: np.ndarray) -> np.ndarray:
    """Rolls (of 36) on which each blot can be hit: ``[0, p - 1]`` the mover's blot on its point ``p``, hit by
    the opponent on roll; ``[1, p - 1]`` the opponent's blot on its own point ``p``, as if the mover were on
    roll. 0 where there is no blot. ``board`` is an afterstate (mover's view)."""
    views = np.empty((2, 28), dtype=np.int64)
    _views(board, views)
    counts = np.zeros((2, 24), dtype=np.int64)
    anys = np.zeros(2, dtype=np.int64)
    _hit_rolls_views(views, counts, anys)
    return counts


@njit(cache=True)
def _pips(view: np.ndarray) -> int:
    total = 25 * view[24]
    for i in range(24):
        if view[i] > 0:
            total += (i + 1) * view[i]
    return total


@njit(cache=True)
def _bear_off_rolls(view: np.ndarray) -> int:
    """Rolls (of 36) that bear off every remaining checker of the side (all home, at most 4 left)."""
    left = 15 - view[26]
    if left == 0 or left > 4 or view[24] > 0:
        return 0
    for i in range(6, 24):
        if view[i] > 0:
            return 0
    hi = 0  # the two highest checkers' points, for non-doubles
    lo = 0
    for i in range(5, -1, -1):
        for _ in range(max(view[i], 0)):
            if hi == 0:
                hi = i + 1
            elif lo == 0:
                lo = i + 1
    rolls = 0
    for k in range(21):
        d1 = _ROLLS[k, 0]
        d2 = _ROLLS[k, 1]
        if d1 == d2:
            moves = 0
            for i in range(6):
                if view[i] > 0:
                    moves += view[i] * ((i + d1) // d1)
            if moves <= 4:
                rolls += 1
        elif left == 1:
            if hi <= d1 + d2:
                rolls += 2
        elif left == 2 and hi <= d2 and lo <= d1:
            rolls += 2
    return rolls


@njit(cache=True)
def _endgame_side(view: np.ndarray, out: np.ndarray, r: int, raw: int, hl: int) -> None:
    home_pips = 0
    high = 0
    occupied = 0
    for i in range(6):
        c = view[i]
        if c > 0:
            _tesauro(out, r, raw + 4 * i, c)
            home_pips += (i + 1) * c
            occupied += 1
            if i >= 3:
                high += c
    off = view[26]
    out[r, raw + 24] = off / 15.0
    if off >= 5:
        out[r, raw + 25] = 1.0
    if off >= 10:
        out[r, raw + 26] = 1.0
    if off >= 14:
        out[r, raw + 27] = 1.0
    left = 15 - off
    out[r, hl + 0] = home_pips / 90.0
    out[r, hl + 1] = left / 15.0
    out[r, hl + 2] = max(_pips(view) / 8.17, left / 2.33) / 10.0
    out[r, hl + 3] = high / 15.0
    out[r, hl + 4] = occupied / 6.0
    out[r, hl + 5] = _bear_off_rolls(view) / 36.0


@njit(cache=True)
def _endgame_block(views: np.ndarray, out: np.ndarray, r: int) -> None:
    _endgame_side(views[0], out, r, 0, 56)
    _endgame_side(views[1], out, r, 28, 62)


@njit(cache=True)
def encode_endgame(boards: np.ndarray) -> np.ndarray:
    """The 68 endgame inputs (float64 ``[n, 68]``) of each afterstate row (mover's view, not swapped)."""
    n = boards.shape[0]
    out = np.zeros((n, N_ENDGAME), dtype=np.float64)
    views = np.empty((2, 28), dtype=np.int64)
    for r in range(n):
        _views(boards[r], views)
        _endgame_block(views, out, r)
    return out


@njit(cache=True)
def _race_side(view: np.ndarray, out: np.ndarray, r: int, raw: int, hl: int) -> None:
    outside = view[24]
    crossovers = 4 * view[24]
    travel = 19 * view[24]
    deep = 0
    back = 0
    occupied = 0
    stack = 0
    for i in range(24):
        c = view[i]
        if c <= 0:
            continue
        _tesauro(out, r, raw + 4 * i, c)
        occupied += 1
        stack += max(c - 3, 0)
        crossovers += (i // 6) * c
        if i >= 6:
            outside += c
            travel += (i - 5) * c
        if i < 3:
            deep += c
        if i >= 18:
            back += c
    out[r, hl + 0] = _pips(view) / 167.0
    out[r, hl + 1] = outside / 15.0
    out[r, hl + 2] = crossovers / 45.0
    out[r, hl + 3] = travel / 90.0
    out[r, hl + 4] = deep / 15.0
    out[r, hl + 5] = back / 15.0
    out[r, hl + 6] = occupied / 15.0
    out[r, hl + 7] = stack / 15.0


@njit(cache=True)
def encode_race(boards: np.ndarray) -> np.ndarray:
    """The 277 race inputs (float64 ``[n, 277]``) of each afterstate row (mover's view, not swapped)."""
    n = boards.shape[0]
    out = np.zeros((n, N_RACE), dtype=np.float64)
    views = np.empty((2, 28), dtype=np.int64)
    for r in range(n):
        _views(boards[r], views)
        _endgame_block(views, out, r)
        _race_side(views[0], out, r, 68, 260)
        _race_side(views[1], out, r, 164, 268)
        out[r, 276] = (_pips(views[1]) - _pips(views[0])) / 100.0
    return out


@njit(cache=True)
def _escape_rolls(view: np.ndarray, s: int, ok: np.int64, blocked: np.int64) -> int:
    """Rolls (of 36) on which a checker on point ``s`` (25 = bar) jumps past the blockade in front of it."""
    lowest = s
    for p in range(max(7, s - 12), s):  # made points in the home board are no blockade to jump
        if (blocked >> p) & 1:
            lowest = p
            break
    target = (np.int64(1) << lowest) - 1  # points below the blockade
    src = np.int64(1) << s
    rolls = 0
    for k in range(21):
        d1 = _ROLLS[k, 0]
        d2 = _ROLLS[k, 1]
        if _landing(src, ok, d1, d2, 4) & target:
            rolls += 1 if d1 == d2 else 2
    return rolls


@njit(cache=True)
def _general_side(
    view: np.ndarray,
    other: np.ndarray,
    hits: np.ndarray,
    any_hit: int,
    out: np.ndarray,
    r: int,
    raw: int,
    hl: int,
) -> None:
    """One side's raw block (at ``raw``) and feature block (at ``hl``); ``view`` is the side's own view,
    ``other`` the other side's, ``hits`` the rolls hitting the side's blots by its points."""
    own_pips = _pips(view)
    other_pips = _pips(other)
    bar = view[24]
    other_bar = view[25]
    # this side's rearmost checker (its bar = 25) and the other side's (in this side's numbering they move
    # upwards, so its rearmost is its lowest point here; its bar = 0)
    own_back, other_back = rearmost_checkers(view)

    src = np.int64(0)
    blocked = np.int64(0)  # the other side's made points
    blots = 0
    hittable = 0
    direct = 0
    home_blots = 0
    exposure = 0.0
    max_hit = 0
    occupied = 0
    stack = 0
    deep = 0
    in_contact = 0
    contact_pips = 0
    spares = 0
    made = np.int64(0)  # this side's made points (bit p)
    for i in range(24):
        c = view[i]
        p = i + 1
        if c <= -2:
            blocked |= np.int64(1) << p
        if c <= 0:
            continue
        src |= np.int64(1) << p
        if c == 1:
            out[r, raw + 5 * i] = 1.0
        else:
            out[r, raw + 5 * i + 1] = 1.0
            made |= np.int64(1) << p
            if i < 12:
                spares += c - 2
        if c >= 3:
            out[r, raw + 5 * i + 2] = 1.0
        if c >= 4:
            out[r, raw + 5 * i + 3] = 1.0
        if c > 4:
            out[r, raw + 5 * i + 4] = (c - 4) / 2.0
        occupied += 1
        stack += max(c - 3, 0)
        if i < 3:
            deep += c
        if p > other_back:
            in_contact += c
            contact_pips += p * c
        if c == 1:
            blots += 1
            h = hits[i]
            out[r, hl + i] = h / 36.0
            exposure += h / 36.0 * (25 - p) / 25.0
            max_hit = max(max_hit, h)
            if h > 0:
                hittable += 1
            if i < 6:
                home_blots += 1
            if other_bar > 0 and p <= 6:  # the other side enters on this side's points 1..6
                direct += 1
            else:
                for q in range(max(1, p - 6), p):
                    if view[q - 1] < 0:
                        direct += 1
                        break
    if bar > 0:
        out[r, raw + 120] = 1.0
        out[r, raw + 121] = (bar - 1) / 2.0
        src |= np.int64(1) << 25
        if other_back < 25:
            in_contact += bar
            contact_pips += 25 * bar
    off = view[26]
    if off > 0:
        out[r, raw + 122] = 1.0
    out[r, raw + 123] = off / 15.0

    # the longest run of made points, this side's and the other side's (in the other's own numbering)
    best = 0
    best_low = 0
    run = 0
    other_best = 0
    other_low = 0
    other_run = 0
    for p in range(1, 25):
        if (made >> p) & 1:
            run += 1
            if run > best:
                best = run
                best_low = p - run + 1
        else:
            run = 0
        if other[p - 1] >= 2:
            other_run += 1
            if other_run > other_best:
                other_best = other_run
                other_low = p - other_run + 1
        else:
            other_run = 0
    trapped = 0
    if other_best >= 3:
        top = 25 - other_low  # the other side's prime is this side's points 26 - low - best .. 25 - low
        trapped = bar
        for p in range(top + 1, 25):
            trapped += max(view[p - 1], 0)

    ok = _VALID & ~blocked
    closed_home = 0
    for p in range(19, 25):
        if (blocked >> p) & 1:
            closed_home += 1
    gaps = 0
    top_made = 0
    for p in range(6, 0, -1):
        if (made >> p) & 1:
            top_made = p
            break
    for p in range(1, top_made):
        if not (made >> p) & 1:
            gaps += 1
    reach = np.int64(0)
    for d in range(1, 7):
        reach |= src >> d
    reach &= _VALID

    out[r, hl + 24] = any_hit / 36.0
    out[r, hl + 25] = blots / 5.0
    out[r, hl + 26] = exposure
    out[r, hl + 27] = max_hit / 36.0
    out[r, hl + 28] = hittable / 5.0
    out[r, hl + 29] = direct / 5.0
    out[r, hl + 30] = home_blots / 6.0
    out[r, hl + 31] = own_pips / 167.0
    out[r, hl + 32] = (other_pips - own_pips) / 100.0
    for z in range(4):
        checkers = 0
        made_points = 0
        for i in range(6 * z, 6 * z + 6):
            if view[i] > 0:
                checkers += view[i]
            if view[i] >= 2:
                made_points += 1
        out[r, hl + 33 + z] = checkers / 15.0
        out[r, hl + 40 + z] = made_points / 6.0
    out[r, hl + 37] = occupied / 15.0
    out[r, hl + 38] = stack / 15.0
    out[r, hl + 39] = deep / 15.0
    if (made >> 20) & 1 or (made >> 21) & 1:
        out[r, hl + 44] = 1.0
    out[r, hl + 45] = best / 6.0
    out[r, hl + 46] = best_low / 24.0
    out[r, hl + 47] = trapped / 15.0
    if own_back > 0:
        out[r, hl + 48] = _escape_rolls(view, own_back, ok, blocked) / 36.0
    out[r, hl + 49] = own_back / 25.0
    for j in range(12):
        out[r, hl + 50 + j] = _escape_rolls(view, 13 + j, ok, blocked) / 36.0
    out[r, hl + 62] = (36 - closed_home * closed_home) / 36.0
    if bar > 0:
        out[r, hl + 63] = closed_home * closed_home / 36.0
    if made & 0x7E == 0x7E:
        out[r, hl + 64] = 1.0
    out[r, hl + 65] = in_contact / 15.0
    out[r, hl + 66] = (own_back - other_back) / 24.0
    out[r, hl + 67] = contact_pips / 167.0
    out[r, hl + 68] = gaps / 5.0
    out[r, hl + 69] = _popcount(reach) / 24.0
    if own_pips < other_pips:
        out[r, hl + 70] = 1.0
    out[r, hl + 71] = spares / 15.0


@njit(cache=True)
def encode_general(boards: np.ndarray) -> np.ndarray:
    """The 393 general inputs (float64 ``[n, 393]``) of each afterstate row (mover's view, not swapped)."""
    n = boards.shape[0]
    out = np.zeros((n, N_GENERAL), dtype=np.float64)
    views = np.empty((2, 28), dtype=np.int64)
    counts = np.zeros((2, 24), dtype=np.int64)
    anys = np.zeros(2, dtype=np.int64)
    for r in range(n):
        _views(boards[r], views)
        _hit_rolls_views(views, counts, anys)
        _general_side(views[0], views[1], counts[0], anys[0], out, r, 0, 248)
        _general_side(views[1], views[0], counts[1], anys[1], out, r, 124, 320)
        out[r, 392] = (_pips(views[0]) + _pips(views[1])) / 334.0
    return out


def encode_class(boards: np.ndarray, cls: int) -> np.ndarray:
    """The inputs of class ``cls`` (0 endgame, 1 race, 2 general) for every afterstate row of ``boards``."""
    if cls == 0:
        return encode_endgame(boards)
    if cls == 1:
        return encode_race(boards)
    if cls == 2:
        return encode_general(boards)
    raise ValueError(f"position class must be 0, 1 or 2, not {cls!r}")


def _feature_names() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    sides = ("me", "opp")
    endgame: list[str] = []
    for s in sides:
        endgame += [f"{s}_home{p}_{u}" for p in range(1, 7) for u in ("ge1", "ge2", "ge3", "over3")]
        endgame += [f"{s}_off", f"{s}_off_ge5", f"{s}_off_ge10", f"{s}_off_ge14"]
    for s in sides:
        endgame += [
            f"{s}_home_pips",
            f"{s}_left",
            f"{s}_rolls_to_finish",
            f"{s}_on_456",
            f"{s}_home_points",
            f"{s}_bear_off_next_roll",
        ]
    race = list(endgame)
    for s in sides:
        race += [f"{s}_pt{p}_{u}" for p in range(1, 25) for u in ("ge1", "ge2", "ge3", "over3")]
    for s in sides:
        race += [
            f"{s}_pips",
            f"{s}_not_home",
            f"{s}_crossovers",
            f"{s}_travel_home",
            f"{s}_on_123",
            f"{s}_on_19_24",
            f"{s}_points_occupied",
            f"{s}_stacking",
        ]
    race.append("pip_lead")
    general: list[str] = []
    for s in sides:
        general += [f"{s}_pt{p}_{u}" for p in range(1, 25) for u in ("blot", "ge2", "ge3", "ge4", "over4")]
        general += [f"{s}_bar", f"{s}_bar_over1", f"{s}_off_any", f"{s}_off"]
    for s in sides:
        general += [f"{s}_hit_pt{p}" for p in range(1, 25)]
        general += [
            f"{s}_any_hit",
            f"{s}_blots",
            f"{s}_hit_exposure",
            f"{s}_max_hit",
            f"{s}_hittable_blots",
            f"{s}_direct_blots",
            f"{s}_home_blots",
            f"{s}_pips",
            f"{s}_pip_lead",
            f"{s}_on_1_6",
            f"{s}_on_7_12",
            f"{s}_on_13_18",
            f"{s}_on_19_24",
            f"{s}_points_occupied",
            f"{s}_stacking",
            f"{s}_on_123",
            f"{s}_made_1_6",
            f"{s}_made_7_12",
            f"{s}_made_13_18",
            f"{s}_made_19_24",
            f"{s}_advanced_anchor",
            f"{s}_prime",
            f"{s}_prime_low",
            f"{s}_trapped",
            f"{s}_rear_escapes",
            f"{s}_rearmost",
        ]
        general += [f"{s}_escapes_pt{p}" for p in range(13, 25)]
        general += [
            f"{s}_enter",
            f"{s}_dance",
            f"{s}_closed_board",
            f"{s}_in_contact",
            f"{s}_contact_distance",
            f"{s}_contact_pips",
            f"{s}_home_gaps",
            f"{s}_coverage",
            f"{s}_race_lead",
            f"{s}_spares",
        ]
    general.append("total_pips")
    return tuple(endgame), tuple(race), tuple(general)


#: One short name per input, per class (endgame, race, general); "me" is the mover, "opp" the opponent.
FEATURE_NAMES: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = _feature_names()
