"""The defaults a user sees: every one that ``sumito COMMAND --help`` shows, declared here once.

At the ground, with nothing but the standard library, so that the command line reads them before it loads
any command's code (numpy, numba, the engine): ``sumito COMMAND --help`` costs a few hundredths of a second.
Each layer that uses a default imports it from here; the limits a user may not pass are in
:mod:`sumito.bounds`.
"""

from __future__ import annotations

from typing import Any

# `sumito alphalone-td`: the Alphalone report's TD(0) (section 3.4)
ALPHALONE_GAMMA = 0.2  # the report's discount
ALPHALONE_TD_GAMES = 100  # the report's "100 iterations"
ALPHALONE_TD_CLIP = 100.0  # the largest weight change one update may make

# `sumito analyse` and the web page's analysis
#: the least loss (in marbles) of each verdict, worst first: the one source of the command line's
#: verdicts and the web page's marks of a game's analysis
THRESHOLDS = (("blunder", 0.8), ("mistake", 0.3), ("inaccuracy", 0.1))
#: defaults of ``sumito analyse``: seconds for one position, plies for each move of a game
ANALYSE_SECONDS = 2.0
ANALYSE_GAME_DEPTH = 6

# the game archive
#: what :func:`default_db_path` is, for a command's help
DEFAULT_DB_TEXT = "$XDG_DATA_HOME/sumito/games.sqlite or ~/.local/share/sumito/games.sqlite"

# matches and tournaments
#: where a command's work runs (``--backend``): a pool of local worker processes, or Ray tasks
BACKENDS = ("process", "ray")
#: random plies that open each pair of games (played once for both colours)
DEFAULT_OPENING_PLIES = 2

# backgammon matches
BACKGAMMON_CHUNK_GAMES = 20  # games per match chunk: fixed, so that results do not depend on the worker count

# `sumito nnue`: the engine's evaluation network
#: the player whose searches made the shipped NNUE's data (no threat search, any repetition a draw, no converting)
NNUE_DATA_PLAYER = "engine:depth=4,prune=0,threats=0,rules=0,trade=0,threads=1,nnue=none"
#: what a network is fitted to: ``mix``, λ·σ(its own search's score / K) + (1 − λ)·result (Stockfish's
#: trainer's); ``tdleaf``, TD-Leaf(λ)'s λ-returns of the following searches' values (:func:`td_leaf_targets`)
NNUE_TARGETS = ("mix", "tdleaf")

# players
#: the strongest engine: the learned evaluation (docs/strength-ledger.md), the hand-set one on other boards
STRONGEST_ENGINE = "engine:nnue=builtin-nnue"

# `sumito plot`: learning curves and their bands
#: the statistics a band is drawn around
BAND_STATISTICS = ("iqm", "median", "mean")
#: what a learning curve shows
PLOT_METRICS = ("score", "wins", "draws")

# `sumito serve`
#: defaults of ``sumito serve --max-depth/--max-time/--max-hash``
DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_TIME = 30.0
DEFAULT_MAX_HASH_MB = 256
#: defaults of ``sumito serve --max-games/--max-queued/--max-human-games``: an address's games with a
#: computer playing (one to move, or two computers), its searches (moves, hints, analyses) queued or
#: running, and its games between two people in progress
DEFAULT_MAX_GAMES = 8
DEFAULT_MAX_QUEUED = 16
DEFAULT_MAX_HUMAN_GAMES = 64
#: the players one thinking worker keeps between requests (so that an engine keeps its table from one move
#: to the next and a network is read once), the least recently used dropped first past either bound: this
#: many, and this many MB of their arrays all together (transposition tables, networks, an engine's second
#: table for a board its network does not know), counted by :func:`sumito.web.playercache.footprint_mb`
PLAYERS_PER_WORKER = 8
WORKER_PLAYERS_MB = 256
#: what a thinking worker's resident memory may be beyond its players' arrays (MB). A worker with its kernels
#: loaded and no player holds 144-169 MB (its RSS counts the pages it shares with the server it was forked
#: from); the rest covers the searches' own memory, the heap and kernels compiled in a worker (a cold numba
#: cache): under docs/reliability.md's memory probe the largest worker was 334 MB (cache warm) to 668 MB
#: (cold). With the budget above it makes the figure of
#: :func:`sumito.web.limits.worker_memory_mb` (Linux, Python 3.11, numba 0.68)
WORKER_BASE_MB = 400

# `sumito solve score`: players against perfect play on the solved board
#: positions in the suite, and the seed that draws them
YARDSTICK_SUITE = 1000
YARDSTICK_SEED = 41

# `sumito solve`
#: what a side with no legal move gets, as a solved table may be built
NO_MOVES_RULES = ("draw", "loss")
#: seconds of solving between two checkpoints (each written at the end of a level)
SOLVE_CHECKPOINT_EVERY = 30.0

# the zero learner's tree search
#: the search's constants (ours, docs/zero.md): Gumbel's σ transform (the paper's c_visit and c_scale), the
#: actions a Gumbel root considers, PUCT's exploration constant and its root noise
C_VISIT = 50.0
C_SCALE = 0.1
CONSIDERED = 16
C_PUCT = 1.5
DIRICHLET_ALPHA = 0.3
DIRICHLET_FRAC = 0.25
#: the root's rule: Gumbel's sequential halving, or PUCT with Dirichlet noise
ZERO_SEARCH_MODES = ("gumbel", "puct")

# `sumito engine`, the text protocol
#: how long `sumito engine`'s search may go on after its input ended before it is stopped (a `go infinite`
#: never ends by itself)
EOF_GRACE_SECONDS = 1.0

# notation
#: the move notations :func:`parse_move_as` reads: Sumito's (= AbaPro's), PlayStrategy's, and any of
#: AbaPro / Nacre / PlayStrategy with ambiguous tokens refused
NOTATIONS = ("sumito", "playstrategy", "auto")

# `sumito train`: the Abalearn methods as presets of the training options
METHOD_PRESETS: dict[str, dict[str, Any]] = {
    # Abalearn (Campos & Langlois 2003), section 6
    "method-I": dict(encoding="abalearn2-c012", regime="opponent-then-self", opponent="random", switch_after=1000,
                     kappa=0.0),
    "method-Ia": dict(encoding="abalearn3-c012", regime="opponent-then-self", opponent="random", switch_after=1000,
                      kappa=0.0),
    # Method II's output and reward scale: stage 3's Method II part (docs/reproductions.md) chose the paper's
    # sigmoid with rewards of ±0.1 a marble, the one reading under which κ = 0 loses most games (§6.2)
    "method-II": dict(encoding="abalearn3-c012", regime="self", kappa=-1.0, output="sigmoid", reward_scale=0.1),
}
