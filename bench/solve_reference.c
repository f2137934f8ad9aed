/*
 * solve_reference.c: an independent retrograde solver of small Abalone variants, the compiled reference
 * that bench/bench_solve.py times `sumito solve` against.
 *
 * Build:  cc -O2 -fopenmp -o solve_reference bench/solve_reference.c
 * Run:    OMP_NUM_THREADS=2 ./solve_reference [--side 3] [--marbles 5] [--win 2] [--inline-only]
 *                                           [--no-moves draw|loss]
 *
 * It prints one JSON line: the variant, the threads used, the seconds of the first pass and of the
 * retrograde levels, their total, the number of positions, the number of levels and the histogram of
 * values ({"value": count, ...}). The histogram does not depend on how positions are numbered, so it is
 * what the benchmark compares with sumito's own table.
 *
 * Rules (those of sumito's engine): a move is an inline move of 1 to 3 marbles in line into an empty
 * cell; a push (sumito) of 2 marbles against 1, or 3 against 1 or 2, where the cell after the pushed
 * marbles is empty or off the board (the last one is then pushed off); or, unless --inline-only, a
 * broadside move of 2 or 3 marbles in line sideways into empty cells. Pushing off the `win`-th opposing
 * marble wins. A side with no legal move draws (or loses, --no-moves loss).
 *
 * Positions are stored for the side to move: every placement of a (the mover's marbles) and b (the other
 * side's) marbles with marbles - win < a, b <= marbles. Values, one signed byte each: d + 1 = the side to
 * move wins in d plies, -(d + 1) = it loses in d plies, 0 = a draw. The solve: a first pass scores the
 * positions with a winning push-off (2) and, under --no-moves loss, those without a move (-1), and stores
 * every other position's number of legal moves in a one-byte counter. Then level by level every position
 * decided at the level is taken back one move in every way (a value and its counter side by side, each
 * predecessor's cache line prefetched as it is found): a predecessor of a lost position wins one
 * ply later, a predecessor of a won one has its counter lowered (atomically) and loses when it reaches
 * zero. What is never decided is a draw.
 *
 * Boards are 64-bit bitboards over axial coordinates (q, r), bit r * W + q with W = 2 * side (one padding
 * column, so that a step off the board lands off the board mask): side 2 to 4. Index of a position:
 * blocks by (a, b); inside one, colex rank of the other side's cells among all cells, times the number of
 * placements of the mover's marbles on the cells left, plus the colex rank of the mover's cells among
 * those.
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("popcnt")  /* every x86-64 CPU in use has it; numba compiles for the host CPU too */
#endif
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 64
/* more take-backs than any position of side <= 4 has (under 48 per empty cell and 24 per marble) */
#define MAX_PRED 4096

typedef uint64_t bb;

/* One entry: its value and its move counter side by side, so that the counter a take-back lowers is in the
   cache line its value was just read from. */
typedef struct {
    int8_t v;
    uint8_t c;
} entry;

/* ------------------------------------------------------------------------------------------ geometry */
static int SIDE, W, NCELLS;
static bb BOARD;
static int SHIFT[6];       /* bit offset of each direction; d + 3 is the opposite of d; 0..2 are the axes */
static int CELLNO[64];     /* bit -> cell number in bit order (-1 off the board) */
static bb CELLBIT[MAX_CELLS];
static bb REACH[6][6];     /* REACH[d][j]: cells c with c + d, ..., c + j*d all on the board */

/* the cells c whose neighbour in the direction of shift s is in x */
static inline bb R(bb x, int s) { return (s > 0 ? x >> s : x << -s) & BOARD; }
/* one bit moved by j steps of shift s (the destination is on the board) */
static inline bb MV(bb x, int s, int j) { return s > 0 ? x << (s * j) : x >> (-s * j); }
static inline int pc(bb x) { return __builtin_popcountll(x); }
static inline int lowbit(bb x) { return __builtin_ctzll(x); }

static void init_geometry(int side) {
    SIDE = side;
    W = 2 * side;
    static const int dq[6] = {1, 0, -1, -1, 0, 1}, dr[6] = {0, 1, 1, 0, -1, -1};
    for (int d = 0; d < 6; d++) SHIFT[d] = dq[d] + dr[d] * W;
    for (int i = 0; i < 64; i++) CELLNO[i] = -1;
    BOARD = 0;
    NCELLS = 0;
    int c = side - 1;
    for (int r = 0; r <= 2 * c; r++)
        for (int q = 0; q <= 2 * c; q++) {
            int x = q - c, z = r - c, y = -x - z;
            if (abs(y) > c) continue;
            int bit = r * W + q;
            BOARD |= (bb)1 << bit;
            CELLNO[bit] = NCELLS;
            CELLBIT[NCELLS++] = (bb)1 << bit;
        }
    for (int d = 0; d < 6; d++) {
        REACH[d][0] = BOARD;
        for (int j = 1; j < 6; j++) REACH[d][j] = REACH[d][j - 1] & R(BOARD, SHIFT[d]) & R(REACH[d][j - 1], SHIFT[d]);
    }
}

/* ------------------------------------------------------------------------------------------- index */
static int64_t C[MAX_CELLS + 1][MAX_CELLS + 1];
static int MARBLES, WIN, LOW, INLINE_ONLY, NO_MOVES_LOSS;
static int64_t START[MAX_CELLS + 1][MAX_CELLS + 1]; /* first entry of block (a, b) */
static int64_t SIZE;

static void init_index(void) {
    for (int n = 0; n <= MAX_CELLS; n++) {
        C[n][0] = 1;
        for (int k = 1; k <= MAX_CELLS; k++) C[n][k] = n ? C[n - 1][k - 1] + C[n - 1][k] : 0;
    }
    SIZE = 0;
    for (int a = LOW; a <= MARBLES; a++)
        for (int b = LOW; b <= MARBLES; b++) {
            START[a][b] = SIZE;
            if (a + b <= NCELLS) SIZE += C[NCELLS][b] * C[NCELLS - b][a];
        }
}

/* the entry of the position with `me` to move against `op` (no branch on which side a cell holds: the
   loops run b and a times) */
static inline uint32_t rank(bb me, bb op) {
    int co = 0, cm = 0;
    int64_t r_op = 0, r_me = 0;
    for (bb it = op; it; it &= it - 1) r_op += C[CELLNO[lowbit(it)]][++co];
    for (bb it = me; it; it &= it - 1) {
        bb low = it & -it; /* its cell's number among the cells without `op` */
        r_me += C[CELLNO[lowbit(it)] - pc(op & (low - 1))][++cm];
    }
    return (uint32_t)(START[cm][co] + r_op * C[NCELLS - co][cm] + r_me);
}

/* the largest c < n with C(c, k) <= r, for colex unranking */
static inline int colex_top(int n, int k, int64_t r) {
    int c = n - 1;
    while (C[c][k] > r) c--;
    return c;
}

typedef struct {
    int a, b;         /* marbles of the mover and of the other side */
    int64_t end;      /* one past the block's last entry */
    int64_t per;      /* placements of the mover for one placement of the other side */
    int64_t r_me;     /* rank of the mover's cells among the free ones */
    bb op, me, pm;    /* the other side's cells, the mover's, the mover's as a pattern over the free cells */
    int nfree;
    bb freebit[MAX_CELLS];
} cursor;

static inline bb expand_pattern(const cursor *cu, bb pm) {
    bb me = 0;
    while (pm) {
        me |= cu->freebit[lowbit(pm)];
        pm &= pm - 1;
    }
    return me;
}

/* position the cursor on entry idx */
static void unrank(cursor *cu, int64_t idx) {
    int a = LOW, b = LOW;
    for (int aa = LOW; aa <= MARBLES; aa++)
        for (int bb_ = LOW; bb_ <= MARBLES; bb_++)
            if (START[aa][bb_] <= idx) { a = aa; b = bb_; }
    /* blocks of no entries share their start with the next: take the last block starting at or before idx
       that has entries (block order is a-major, so the scan above ends on the one holding idx) */
    int64_t local = idx - START[a][b];
    cu->a = a;
    cu->b = b;
    cu->per = C[NCELLS - b][a];
    cu->end = START[a][b] + C[NCELLS][b] * cu->per;
    int64_t r_op = local / cu->per, r_me = local % cu->per;
    cu->r_me = r_me;
    bb op = 0;
    int c = NCELLS;
    for (int j = b; j >= 1; j--) {
        c = colex_top(c, j, r_op);
        op |= CELLBIT[c];
        r_op -= C[c][j];
    }
    cu->op = op;
    cu->nfree = 0;
    for (int i = 0; i < NCELLS; i++)
        if (!(op & CELLBIT[i])) cu->freebit[cu->nfree++] = CELLBIT[i];
    bb pm = 0;
    c = cu->nfree;
    for (int j = a; j >= 1; j--) {
        c = colex_top(c, j, r_me);
        pm |= (bb)1 << c;
        r_me -= C[c][j];
    }
    cu->pm = pm;
    cu->me = expand_pattern(cu, pm);
}

/* step the cursor to entry idx + 1 (the caller's idx is the cursor's): the next mover pattern in colex
   order (Gosper's hack), or a fresh unrank when the other side's placement changes */
static inline void advance(cursor *cu, int64_t next) {
    if (cu->a > 0 && cu->r_me + 1 < cu->per) {
        bb x = cu->pm, low = x & -x, ripple = x + low;
        cu->pm = (((ripple ^ x) >> 2) / low) | ripple;
        cu->r_me++;
        cu->me = expand_pattern(cu, cu->pm);
    } else {
        unrank(cu, next);
    }
}

/* ------------------------------------------------------------------------------------------- moves */
/* the number of legal moves of `me` against `op` */
static inline int count_moves(bb me, bb op) {
    bb occ = me | op, E = BOARD & ~occ;
    int n = 0;
    for (int d = 0; d < 6; d++) {
        int s = SHIFT[d];
        bb m1 = R(me, s), m2 = R(m1, s);
        bb e1 = R(E, s), e2 = R(e1, s), e3 = R(e2, s);
        bb o1 = R(op, s), o2 = R(o1, s), o3 = R(o2, s), o4 = R(o3, s);
        bb f3 = R(R(R(occ, s), s), s), f4 = R(f3, s), f5 = R(f4, s); /* c + j*d occupied */
        bb t2 = me & m1, t3 = t2 & m2;
        n += pc(me & e1) + pc(t2 & e2) + pc(t3 & e3);           /* inline into an empty cell */
        n += pc(t2 & o2 & ~f3);                                  /* 2 push 1 */
        n += pc(t3 & o3 & ~f4) + pc(t3 & o3 & o4 & ~f5);         /* 3 push 1, 3 push 2 */
    }
    if (!INLINE_ONLY)
        for (int a = 0; a < 3; a++) {
            int sa = SHIFT[a];
            bb ma = R(me, sa);
            bb p2 = me & ma, p3 = p2 & R(ma, sa);
            if (!p2) continue;
            for (int d = 0; d < 6; d++) {
                if (d == a || d == a + 3) continue;
                bb ed = R(E, SHIFT[d]), eda = R(ed, sa), edaa = R(eda, sa);
                n += pc(p2 & ed & eda) + pc(p3 & ed & eda & edaa);
            }
        }
    return n;
}

/* whether `me` can push one of `op`'s marbles off the board */
static inline int has_push_off(bb me, bb op) {
    for (int d = 0; d < 6; d++) {
        int s = SHIFT[d];
        bb m1 = R(me, s), m2 = R(m1, s);
        bb o1 = R(op, s), o2 = R(o1, s), o3 = R(o2, s), o4 = R(o3, s);
        bb t2 = me & m1, t3 = t2 & m2;
        if ((t2 & o2 & ~REACH[d][3]) | (t3 & o3 & ~REACH[d][4]) | (t3 & o3 & o4 & ~REACH[d][5])) return 1;
    }
    return 0;
}

/* The entry of every position from which one move of `y` gives the position with `x` to move (`x` to
   move, `y` just moved); once for each such move. Returns how many. Each entry's cache line in `e` is
   fetched as soon as its index is known. */
#define EMIT(r)                                                                                             \
    do {                                                                                                    \
        uint32_t r_ = (r);                                                                                  \
        out[n++] = r_;                                                                                      \
        __builtin_prefetch(e + r_, 1, 3);                                                                   \
    } while (0)
static inline int predecessors(bb x, bb y, uint32_t *out, const entry *e) {
    bb E = BOARD & ~(x | y);
    int n = 0;
    int x_may_grow = pc(x) < MARBLES; /* a take-back may return a pushed-off marble of x */
    for (int d = 0; d < 6; d++) {
        int s = SHIFT[d];
        bb y1 = R(y, s), y2 = R(y1, s), y3 = R(y2, s), y4 = R(y3, s);
        bb x3 = R(R(R(x, s), s), s), x4 = R(x3, s), x5 = R(x4, s);
        /* y's k marbles t + d .. t + k*d moved from t .. t + (k-1)*d in direction d, t now empty */
        bb m = E & y1;
        for (int k = 1; k <= 3 && m; k++) {
            for (bb it = m; it; it &= it - 1) {
                bb t = it & -it;
                EMIT(rank(y ^ t ^ MV(t, s, k), x));
            }
            m &= k == 1 ? y2 : y3;
        }
        /* pushes in direction d by k = 2 or 3 of y's marbles (exactly k in line after the empty t) */
        bb t2 = E & y1 & y2 & ~y3, t3 = E & y1 & y2 & y3 & ~y4;
        for (bb it = t2 & x3; it; it &= it - 1) { /* 2 pushed 1, still on the board */
            bb t = it & -it, f = MV(t, s, 2);
            EMIT(rank(y ^ t ^ f, x ^ f ^ MV(t, s, 3)));
        }
        for (bb it = t3 & x4; it; it &= it - 1) { /* 3 pushed 1 */
            bb t = it & -it, f = MV(t, s, 3);
            EMIT(rank(y ^ t ^ f, x ^ f ^ MV(t, s, 4)));
        }
        for (bb it = t3 & x4 & x5; it; it &= it - 1) { /* 3 pushed 2 */
            bb t = it & -it, f = MV(t, s, 3);
            EMIT(rank(y ^ t ^ f, x ^ f ^ MV(t, s, 5)));
        }
        if (x_may_grow) { /* the last pushed marble went off the board: x had one more */
            for (bb it = t2 & ~REACH[d][3]; it; it &= it - 1) {
                bb t = it & -it, f = MV(t, s, 2);
                EMIT(rank(y ^ t ^ f, x | f));
            }
            for (bb it = t3 & (~REACH[d][4] | (x4 & ~REACH[d][5])); it; it &= it - 1) {
                bb t = it & -it, f = MV(t, s, 3);
                EMIT(rank(y ^ t ^ f, x | f));
            }
        }
    }
    if (!INLINE_ONLY)
        for (int a = 0; a < 3; a++) { /* broadside: y's line c, c + a (, c + 2a) came from one step away */
            int sa = SHIFT[a];
            bb ya = R(y, sa);
            bb p2 = y & ya, p3 = p2 & R(ya, sa);
            if (!p2) continue;
            for (int d = 0; d < 6; d++) {
                if (d == a || d == a + 3) continue;
                int sd = SHIFT[d];
                bb ed = R(E, sd), eda = R(ed, sa), edaa = R(eda, sa);
                for (bb it = p2 & ed & eda; it; it &= it - 1) {
                    bb c = it & -it, line = c | MV(c, sa, 1);
                    EMIT(rank(y ^ line ^ MV(line, sd, 1), x));
                }
                for (bb it = p3 & ed & eda & edaa; it; it &= it - 1) {
                    bb c = it & -it, line = c | MV(c, sa, 1) | MV(c, sa, 2);
                    EMIT(rank(y ^ line ^ MV(line, sd, 1), x));
                }
            }
        }
    return n;
}

/* -------------------------------------------------------------------------------------------- solve */
#define CHUNK (1 << 16)

static void fail(const char *msg) {
    fprintf(stderr, "solve_reference: %s\n", msg);
    exit(2);
}

static int parse_int(const char *s, const char *name, int lo, int hi) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "solve_reference: %s must be an integer from %d to %d, not '%s'\n", name, lo, hi, s);
        exit(2);
    }
    return (int)v;
}

typedef struct {
    uint32_t *data;
    size_t n, cap;
} buffer;

static void push(buffer *b, uint32_t i) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4096;
        b->data = realloc(b->data, b->cap * sizeof(uint32_t));
        if (!b->data) fail("out of memory");
    }
    b->data[b->n++] = i;
}

/* append to `b` the entries first .. last - 1 whose value is `code`, four at a time past those without */
static void scan(const entry *e, int64_t first, int64_t last, int code, buffer *b) {
    int64_t i = first;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t lows = 0x00ff00ff00ff00ffull, carries = 0x0100010001000100ull;
    const uint64_t want = (uint64_t)(uint8_t)code * 0x0001000100010001ull;
    for (; i + 4 <= last; i += 4) {
        uint64_t w;
        memcpy(&w, e + i, 8);
        uint64_t x = (w & lows) ^ want; /* four 16-bit lanes, each 0 where that value is `code` */
        if (((x + lows) & carries) == carries) continue; /* every lane is non-zero: no match */
        for (int j = 0; j < 4; j++)
            if (e[i + j].v == code) push(b, (uint32_t)(i + j));
    }
#endif
    for (; i < last; i++)
        if (e[i].v == code) push(b, (uint32_t)i);
}

/* decide what the take-backs into one position of the level settle: a predecessor of a lost position
   (lost_below) is won, a predecessor of a won one has its counter lowered and is lost when it reaches 0 */
static inline void settle(entry *e, uint32_t *p, int n, int lost_below, int8_t next) {
    if (lost_below) {
        for (int i = 0; i < n; i++)
            if (__atomic_load_n(&e[p[i]].v, __ATOMIC_RELAXED) == 0)
                __atomic_store_n(&e[p[i]].v, next, __ATOMIC_RELAXED);
        return;
    }
    /* every value read before the first atomic (a locked instruction waits for the loads before it) */
    int m = 0;
    for (int i = 0; i < n; i++) {
        p[m] = p[i];
        m += __atomic_load_n(&e[p[i]].v, __ATOMIC_RELAXED) == 0;
    }
    for (int i = 0; i < m; i++)
        if (__atomic_fetch_sub(&e[p[i]].c, 1, __ATOMIC_RELAXED) == 1)
            __atomic_store_n(&e[p[i]].v, next, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
    int side = 3, marbles = 5, win = 2, inline_only = 0, no_moves_loss = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--inline-only")) { inline_only = 1; continue; }
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            puts("usage: solve_reference [--side 2..4] [--marbles N] [--win N] [--inline-only] "
                 "[--no-moves draw|loss]\nSolves the variant and prints one JSON line (timings, positions, "
                 "the histogram of values).");
            return 0;
        }
        if (strcmp(o, "--side") && strcmp(o, "--marbles") && strcmp(o, "--win") && strcmp(o, "--no-moves")) {
            fprintf(stderr, "solve_reference: unknown option %s (see --help)\n", o);
            return 2;
        }
        if (i + 1 >= argc) { fprintf(stderr, "solve_reference: %s needs a value\n", o); return 2; }
        const char *v = argv[++i];
        if (!strcmp(o, "--side")) side = parse_int(v, "--side", 2, 4);
        else if (!strcmp(o, "--marbles")) marbles = parse_int(v, "--marbles", 1, 32);
        else if (!strcmp(o, "--win")) win = parse_int(v, "--win", 1, 32);
        else if (!strcmp(v, "loss")) no_moves_loss = 1;
        else if (strcmp(v, "draw")) fail("--no-moves must be 'draw' or 'loss'");
    }
    if (win > marbles) fail("--win must be at most --marbles");
    init_geometry(side);
    MARBLES = marbles;
    WIN = win;
    LOW = marbles - win + 1;
    INLINE_ONLY = inline_only;
    NO_MOVES_LOSS = no_moves_loss;
    init_index();
    if (SIZE >= ((int64_t)1 << 32)) fail("the variant has too many positions for this solver (2^32 at most)");

    int threads = omp_get_max_threads();
    double t0 = omp_get_wtime();
    entry *e = calloc(SIZE ? SIZE : 1, sizeof(entry));
    if (!e) fail("out of memory");

    /* the first pass */
    int64_t n_chunks = (SIZE + CHUNK - 1) / CHUNK;
    int most = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : most)
    for (int64_t ci = 0; ci < n_chunks; ci++) {
        cursor cu;
        int64_t first = ci * CHUNK, last = first + CHUNK < SIZE ? first + CHUNK : SIZE;
        unrank(&cu, first);
        for (int64_t idx = first; idx < last; idx++) {
            if (idx == cu.end) unrank(&cu, idx);
            else if (idx > first) advance(&cu, idx);
            if (cu.b == LOW && has_push_off(cu.me, cu.op)) {
                e[idx].v = 2; /* wins in 1: the push-off that wins */
                continue;
            }
            int k = count_moves(cu.me, cu.op);
            if (k > most) most = k;
            e[idx].c = (uint8_t)(k > 255 ? 255 : k);
            if (k == 0 && NO_MOVES_LOSS) e[idx].v = -1;
        }
    }
    if (most > 255) fail("a position has more than 255 legal moves; the counters are one byte");
    double t1 = omp_get_wtime();

    /* the levels */
    buffer *bufs = calloc(threads, sizeof(buffer));
    size_t *offs = calloc(threads + 1, sizeof(size_t));
    uint32_t *level = NULL;
    size_t level_cap = 0;
    int plies = 0, levels = 0;
    for (;;) {
        int code = plies % 2 ? plies + 1 : -(plies + 1);
        size_t total = 0;
        int over = 0;
#pragma omp parallel
        {
            int tid = omp_get_thread_num();
            buffer *b = &bufs[tid];
            b->n = 0;
            /* dynamic: a thread the machine holds up does not hold the level up (the list's order is free) */
#pragma omp for schedule(dynamic, 4)
            for (int64_t ci = 0; ci < n_chunks; ci++) {
                int64_t first = ci * CHUNK, last = first + CHUNK < SIZE ? first + CHUNK : SIZE;
                scan(e, first, last, code, b);
            }
#pragma omp single
            {
                offs[0] = 0;
                for (int t = 0; t < omp_get_num_threads(); t++) offs[t + 1] = offs[t] + bufs[t].n;
                total = offs[omp_get_num_threads()];
                if (total > level_cap) {
                    free(level);
                    level_cap = total + total / 4;
                    level = malloc(level_cap * sizeof(uint32_t));
                    if (!level) fail("out of memory");
                }
                over = total && plies + 2 > 127;
            }
            if (b->n) memcpy(level + offs[tid], b->data, b->n * sizeof(uint32_t));
#pragma omp barrier
            if (total && !over) {
                int lost_below = code < 0;
                int8_t next = (int8_t)(lost_below ? -code + 1 : -(code + 1));
                /* two buffers: a position's predecessors are settled after the next position's are found,
                   so that their prefetched cache lines have arrived */
                uint32_t buf[2][MAX_PRED];
                int cur = 0, pending = 0;
#pragma omp for schedule(dynamic, 256) nowait
                for (size_t t = 0; t < total; t++) {
                    cursor cu;
                    unrank(&cu, level[t]);
                    /* cu.me is to move and lost/won; cu.op moved last: the predecessors have cu.op to move */
                    int n = predecessors(cu.me, cu.op, buf[cur], e);
                    settle(e, buf[cur ^ 1], pending, lost_below, next);
                    cur ^= 1;
                    pending = n;
                }
                settle(e, buf[cur ^ 1], pending, lost_below, next);
            }
        }
        if (over) fail("a win or loss is more than 125 plies long; the values are one byte");
        if (total == 0 && plies > 0) break;
        if (total) levels++;
        plies++;
    }
    double t2 = omp_get_wtime();

    /* the histogram of values */
    int64_t hist[256] = {0};
#pragma omp parallel
    {
        int64_t h[256] = {0};
#pragma omp for schedule(static)
        for (int64_t i = 0; i < SIZE; i++) h[(uint8_t)e[i].v]++;
#pragma omp critical
        for (int v = 0; v < 256; v++) hist[v] += h[v];
    }
    printf("{\"solver\": \"solve_reference.c\", \"side\": %d, \"marbles\": %d, \"win\": %d, \"inline_only\": %s, "
           "\"no_moves\": \"%s\", \"threads\": %d, \"positions\": %lld, \"first_pass_s\": %.4f, "
           "\"levels_s\": %.4f, \"total_s\": %.4f, \"levels\": %d, \"plies\": %d, \"histogram\": {",
           side, marbles, win, inline_only ? "true" : "false", no_moves_loss ? "loss" : "draw", threads,
           (long long)SIZE, t1 - t0, t2 - t1, t2 - t0, levels, plies);
    int sep = 0;
    for (int v = -128; v < 128; v++)
        if (hist[(uint8_t)v]) {
            printf("%s\"%d\": %lld", sep ? ", " : "", v, (long long)hist[(uint8_t)v]);
            sep = 1;
        }
    printf("}}\n");
    for (int t = 0; t < threads; t++) free(bufs[t].data);
    free(bufs);
    free(offs);
    free(level);
    free(e);
    return 0;
}
