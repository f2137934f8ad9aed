"""TD learning of the Alphalone player's weights (Hakim & Zhou, section 3.4; Tables 1–2's agents).

The evaluation is linear, ``V_c(s) = w_c · f(s)``, over the report's ten features
(:data:`~sumito.evaluation.features.ALPHALONE_FEATURES`, computed as ``features`` says: ``code``,
the authors' code's, by default, or ``text``; see :mod:`sumito.evaluation.alphalone`), with one
weight vector per colour ``c``, each scoring positions from its own side. The report: "100
iterations of TD-learning with the same initial weights for both players and a γ value of 0.2",
step sizes η = 1e-2 … 1e-5, and the utility ``U(s) = N · (whiteOff⁴ − blackOff⁴)``.

Two methods (``method``):

**code** (the default) follows the authors' ``tdlearning.py`` (the stored version that plays
whole games): one weight vector per run, learned by a self-play game in which one side picks the
successor of highest ``w·f`` and the other the successor of lowest ``w·f`` (one ply, greedy,
no randomness unless ``explore``), and which updates after *every* ply, on the position before
the move: ``δ = U(s') + γ·w·f(s') − w·f(s)``, ``w ← w + η·δ·f(s)``, with ``V(s')`` taken at the
final position too (the code has no terminal case; ``terminal="zero"`` uses 0 there). Black's
weights are learned with Black maximising and Black's utility. For White's weights
(``white_side``): ``code`` (the default) runs the same routine on White's weights — Black
maximises them, White minimises them and the reward is Black's utility — which is what the
stored code does when given White's weights, and what the published White weights show (their
weight on Black's marbles off falls from 12 by an amount that grows with η: 11.62 at 1e-4, 4.06
at 1e-3, −4.68 at 1e-2); ``mirror`` is the consistent reading: White maximises its own weights
with White's utility. Games run to a win or ``max_plies`` (the code: 500 rounds) with no
repetition rule, on the inline-only game (the authors' engine has no broadside moves; ``moves``).

**afterstates** (our earlier reading): each colour learns on its own afterstates (the positions
just after each of its moves) in one shared game per iteration where both colours play greedily
by their own weights, choosing at random between the two best moves with probability
``explore`` (default 1/2): for colour ``c`` with successive afterstates ``s`` and ``s'``,
``δ = r + γ · V_c(s') − V_c(s)``, ``r = U_c(s')``, ``w_c ← w_c + η · δ · f(s)``; at a win both
colours update towards the final position with ``V = 0``; a game cut by the ply cap (200) or a
threefold repetition is truncated.

**Reward.** ``U(s) = N · (whiteOff⁴ − blackOff⁴)`` for Black, its negative for White. ``N`` is
left free by the report; ours defaults to ``160 / win⁴`` (:func:`default_scale`): N = 10 on the
mini board (2 marbles to win), 0.256 on the small board (5 to win). (The stored ``model.py``
has ``20 · (whiteOff² − blackOff²)``; the report's fourth power is kept.)

**Initial weights** (:data:`HAND_SET_BLACK`, :data:`HAND_SET_WHITE`): the authors' starting
weights, listed in their ``learnedWeights.py`` ("With initial weights"): for Black marbles off
−10 (own) / +12 (White's), edge −1 / +2, average distance from the centre −1 / +2, coherence
+2 / −1, divide and conquer ("break") +2 / 0; White's are the mirror.

**"Iterations"** are training games here (``games``, default 100). The stored code does not
show which loop made its "100 iterations"; its published Black weights keep the marbles-off
weights at exactly −10 / +12, so no position it learned on had a marble off.

**Clipping.** After every update each weight is clipped to ``[−clip, clip]`` (default 100)
(``clipped`` in the result counts the updates where it bound).

Everything random comes from one ``numpy`` generator seeded by ``seed``: the same configuration
gives the same weights, bit for bit. The result is an :class:`AlphaloneWeights` file, which
``alphalone:weights=PATH`` plays.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sumito.bounds import MAX_WEIGHT
from sumito.defaults import ALPHALONE_GAMMA, ALPHALONE_TD_CLIP, ALPHALONE_TD_GAMES
from sumito.errors import SumitoError
from sumito.evaluation.alphalone import FEATURE_SETS, AlphaloneWeights, WeightsError, feature_vector, score
from sumito.evaluation.features import work_arrays
from sumito.games.abalone import BLACK, WHITE, Move, Position, get_layout
from sumito.games.abalone.kernels import PUSH_OFF_BIT, make_move, unmake_move
from sumito.jit import njit
from sumito.nn import dot
from sumito.search.context import WIN, SearchContext

WIN_UTILITY = 160.0  # the default N makes a win worth this: N = WIN_UTILITY / win_threshold⁴
DEFAULT_MAX_PLIES = {"code": 500, "afterstates": 200}  # the code's AbaloneGame(500); ours
DEFAULT_EXPLORE = {"code": 0.0, "afterstates": 0.5}  # chance of the second-best move instead of the best
METHODS = ("code", "afterstates")
WHITE_SIDES = ("code", "mirror")
TERMINALS = ("code", "zero")
REPORT_ETAS = (1e-2, 1e-3, 1e-4, 1e-5)  # the step sizes of the report's agents 1–4

# The authors' initial weights (learnedWeights.py), the same for both players (each from its own
# side); the order is ALPHALONE_FEATURES: black_off, white_off, black_edge, white_edge,
# black_average_distance, white_average_distance, black_coherence, white_coherence, black_break,
# white_break.
HAND_SET_BLACK = (-10.0, 12.0, -1.0, 2.0, -1.0, 2.0, 2.0, -1.0, 2.0, 0.0)
HAND_SET_WHITE = (12.0, -10.0, 2.0, -1.0, 2.0, -1.0, -1.0, 2.0, 0.0, 2.0)


class AlphaloneTDError(SumitoError):
    """A bad setting of Alphalone TD training."""


def initial_weights() -> AlphaloneWeights:
    """The authors' starting weights (see the module's notes)."""
    return AlphaloneWeights(HAND_SET_BLACK, HAND_SET_WHITE)


def default_scale(win_threshold: int) -> float:
    """The default N for a board where ``win_threshold`` marbles win: a win is worth 160 (mini: 10)."""
    return WIN_UTILITY / win_threshold**4


def utility(lost_black: int, lost_white: int, color: int, scale: float) -> float:
    """The report's utility ``N·(whiteOff⁴ − blackOff⁴)`` for Black, its negative for White."""
    u = scale * (float(lost_white) ** 4 - float(lost_black) ** 4)
    return u if color == BLACK else -u


def features(position: Position, kind: str = "code") -> np.ndarray:
    """The ten Alphalone features of ``position`` (float64[10], in ALPHALONE_FEATURES order)."""
    return feature_vector(position, kind)


def td_update(
    w: np.ndarray,
    f: np.ndarray,
    reward: float,
    f_next: np.ndarray | None,
    *,
    eta: float,
    gamma: float = ALPHALONE_GAMMA,
    clip: float | None = ALPHALONE_TD_CLIP,
) -> tuple[np.ndarray, float]:
    """One TD(0) step of the linear value ``w·f``: the new weights and the TD error δ.

    ``δ = reward + γ·w·f_next − w·f`` (``f_next`` None: a terminal state, worth 0), then
    ``w + η·δ·f``, clipped to ``[−clip, clip]`` (``clip`` None: no clipping).
    """
    v = dot(w, f)  # not BLAS's ddot, whose sum order depends on the CPU
    v_next = 0.0 if f_next is None else dot(w, f_next)
    delta = reward + gamma * v_next - v
    new = w + eta * delta * f
    if clip is not None:
        new = np.clip(new, -clip, clip)
    return new, delta


@dataclass(frozen=True)
class TDConfig:
    eta: float = 1e-3
    games: int = ALPHALONE_TD_GAMES
    layout: str = "mini"
    seed: int = 0
    gamma: float = ALPHALONE_GAMMA
    scale: float | None = None  # N; None: default_scale(the layout's win threshold)
    max_plies: int | None = None  # None: 500 (code) or 200 (afterstates)
    clip: float = ALPHALONE_TD_CLIP
    explore: float | None = None  # None: 0 (code) or 0.5 (afterstates)
    inline_only: bool = True  # the authors' engine has inline moves only
    method: str = "code"
    features: str = "code"
    white_side: str = "code"
    terminal: str = "code"
    initial: AlphaloneWeights = field(default_factory=initial_weights)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.eta) and self.eta > 0):
            raise AlphaloneTDError(f"--eta must be a positive number, not {self.eta:g}")
        if self.games < 1:
            raise AlphaloneTDError(f"--games must be at least 1, not {self.games}")
        if not 0 <= self.seed < 2**63:
            raise AlphaloneTDError(f"--seed must be a whole number from 0 to {2**63 - 1}, not {self.seed}")
        if not 0 <= self.gamma <= 1:
            raise AlphaloneTDError(f"--gamma must be from 0 to 1, not {self.gamma:g}")
        if self.scale is not None and not (math.isfinite(self.scale) and self.scale > 0):
            raise AlphaloneTDError(f"--scale must be a positive number, not {self.scale:g}")
        if self.max_plies is not None and self.max_plies < 1:
            raise AlphaloneTDError(f"--max-plies must be at least 1, not {self.max_plies}")
        if not (math.isfinite(self.clip) and 0 < self.clip <= MAX_WEIGHT):  # the weights file must load again
            raise AlphaloneTDError(f"--clip must be a positive number of at most {MAX_WEIGHT:g}, not {self.clip:g}")
        if self.explore is not None and not 0 <= self.explore <= 1:
            raise AlphaloneTDError(f"--explore must be from 0 to 1, not {self.explore:g}")
        for name, value, choices in (
            ("method", self.method, METHODS),
            ("features", self.features, FEATURE_SETS),
            ("white-side", self.white_side, WHITE_SIDES),
            ("terminal", self.terminal, TERMINALS),
        ):
            if value not in choices:
                raise AlphaloneTDError(f"--{name} must be one of {', '.join(choices)}, not {value!r}")
        try:
            get_layout(self.layout)
        except SumitoError as exc:
            raise AlphaloneTDError(str(exc)) from None

    @property
    def utility_scale(self) -> float:
        """N, as used: ``scale`` or the default for the layout's board."""
        if self.scale is not None:
            return self.scale
        return default_scale(get_layout(self.layout).variant.win_threshold)

    @property
    def ply_cap(self) -> int:
        return self.max_plies if self.max_plies is not None else DEFAULT_MAX_PLIES[self.method]

    @property
    def explore_rate(self) -> float:
        return self.explore if self.explore is not None else DEFAULT_EXPLORE[self.method]


@dataclass
class TDResult:
    weights: AlphaloneWeights
    outcomes: Counter = field(default_factory=Counter)  # "black", "white", "draw"
    plies: int = 0  # summed over the games
    updates: int = 0
    clipped: int = 0  # updates where clipping changed a weight
    seconds: float = 0.0
    games: int = 0  # games played (the code method plays one run per colour)


@njit(cache=True)
def _successor_scores(board, mover, lost, cells, offsets, ring, edge_ring, zobrist, w, code, moves, out, raw, scratch):
    """``w·f`` of the position after each of ``moves`` by ``mover`` (no special case for a win)."""
    for i in range(moves.shape[0]):
        mv = moves[i]
        make_move(board, mv, mover, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - mover] += 1
        out[i] = score(board, 1, 3 - mover, lost[0], lost[1], cells, ring, offsets, edge_ring, w, code, raw, scratch)
        unmake_move(board, mv, mover, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - mover] -= 1


def successor_scores(position: Position, w: np.ndarray, kind: str = "code") -> tuple[np.ndarray, np.ndarray]:
    """The legal move codes of ``position`` and ``w·f`` of the position after each."""
    codes = position.legal_move_codes()
    ctx = SearchContext.of(position)
    out = np.empty(len(codes), dtype=np.float64)
    raw, scratch = work_arrays()
    params = np.concatenate([w, w]).astype(np.float64)
    _successor_scores(ctx.board, ctx.side, ctx.lost, ctx.cells, ctx.offsets, ctx.ring, ctx.edge_ring, ctx.zobrist,
                      params, kind == "code", codes.astype(np.int32), out, raw, scratch)
    return codes, out


def _pick(values: np.ndarray, maximise: bool, rng: np.random.Generator, explore: float) -> int:
    order = np.argsort(-values if maximise else values, kind="stable")
    pick = order[0]
    # with explore > 0, a draw from the generator every move keeps the stream independent of the values
    if explore > 0 and len(order) > 1 and rng.random() < explore:
        pick = order[1]
    return int(pick)


def _choose(position: Position, w: np.ndarray, rng: np.random.Generator, explore: float, kind: str) -> int:
    """The ``afterstates`` policy: greedy by the mover's ``w``, a winning move scored WIN."""
    codes, values = successor_scores(position, w, kind)
    lost, side, win = position.lost, position.side_to_move, position.variant.win_threshold
    if lost[2 - side] + 1 >= win:
        values[(codes & PUSH_OFF_BIT) != 0] = WIN
    return int(codes[_pick(values, True, rng, explore)])


def _start(config: TDConfig) -> Position:
    return Position.start(config.layout, inline_only=config.inline_only)


def play_and_learn(
    w: dict[int, np.ndarray],
    config: TDConfig,
    rng: np.random.Generator,
    result: TDResult,
    trace: list | None = None,
) -> int | None:
    """One ``afterstates`` training game from the layout's start, updating ``w`` in place; the
    winner or None.

    ``trace``, when given, receives every update as ``(colour, f, reward, f_next)`` (``f_next``
    None at the end of the game).
    """
    pos = _start(config)
    last: dict[int, np.ndarray | None] = {BLACK: None, WHITE: None}  # each colour's last afterstate features
    seen = Counter([pos.zobrist])
    scale = config.utility_scale
    explore = config.explore_rate
    winner = None
    plies = 0

    def learn(color: int, f_next: np.ndarray | None, after: Position) -> None:
        f = last[color]
        if f is None:
            return
        r = utility(after.lost[0], after.lost[1], color, scale)
        if trace is not None:
            trace.append((color, f, r, f_next))
        new, _ = td_update(w[color], f, r, f_next, eta=config.eta, gamma=config.gamma, clip=None)
        clipped = np.clip(new, -config.clip, config.clip)
        result.clipped += bool(np.any(clipped != new))
        result.updates += 1
        w[color] = clipped

    while plies < config.ply_cap:
        side = pos.side_to_move
        if pos.count_legal_moves() == 0:
            break  # no move: a draw, truncated
        code = _choose(pos, w[side], rng, explore, config.features)
        pos = pos.play(Move(code, pos.variant.side))
        plies += 1
        winner = pos.winner()
        if winner is not None:
            learn(side, None, pos)
            learn(3 - side, None, pos)
            break
        f_new = features(pos, config.features)
        learn(side, f_new, pos)
        last[side] = f_new
        seen[pos.zobrist] += 1
        if seen[pos.zobrist] >= 3:
            break  # threefold repetition: a draw, truncated
    result.plies += plies
    result.games += 1
    result.outcomes[{BLACK: "black", WHITE: "white"}.get(winner, "draw")] += 1  # type: ignore[arg-type]
    return winner


def play_and_learn_code(
    w: np.ndarray,
    color: int,
    config: TDConfig,
    rng: np.random.Generator,
    result: TDResult,
    trace: list | None = None,
) -> tuple[np.ndarray, int | None]:
    """One ``code`` training game for ``color``'s weights ``w``: the new weights and the winner.

    ``trace``, when given, receives every update as ``(f, reward, f_next)`` (``f_next`` None
    only with ``terminal="zero"`` at a win).
    """
    pos = _start(config)
    scale = config.utility_scale
    explore = config.explore_rate
    # who maximises w·f, and whose utility is the reward
    maximiser = BLACK if (color == BLACK or config.white_side == "code") else WHITE
    winner = None
    plies = 0
    f = features(pos, config.features)
    while plies < config.ply_cap:
        side = pos.side_to_move
        if pos.count_legal_moves() == 0:
            break
        codes, values = successor_scores(pos, w, config.features)
        code = int(codes[_pick(values, side == maximiser, rng, explore)])
        pos = pos.play(Move(code, pos.variant.side))
        plies += 1
        winner = pos.winner()
        r = utility(pos.lost[0], pos.lost[1], maximiser, scale)
        f_next = features(pos, config.features)
        target_next = None if (winner is not None and config.terminal == "zero") else f_next
        if trace is not None:
            trace.append((f, r, target_next))
        new, _ = td_update(w, f, r, target_next, eta=config.eta, gamma=config.gamma, clip=None)
        w = np.clip(new, -config.clip, config.clip)
        result.clipped += bool(np.any(w != new))
        result.updates += 1
        f = f_next
        if winner is not None:
            break
    result.plies += plies
    result.games += 1
    result.outcomes[{BLACK: "black", WHITE: "white"}.get(winner, "draw")] += 1  # type: ignore[arg-type]
    return w, winner


def train(config: TDConfig, progress: Callable[[int, TDResult], None] | None = None) -> TDResult:
    """Train both colours' weights by TD(0) over ``config.games`` self-play games (``code``: per colour)."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(config.seed)
    w = {
        BLACK: np.array(config.initial.black, dtype=np.float64),
        WHITE: np.array(config.initial.white, dtype=np.float64),
    }
    result = TDResult(weights=config.initial)
    if config.method == "code":
        for color in (BLACK, WHITE):
            for game in range(config.games):
                w[color], _ = play_and_learn_code(w[color], color, config, rng, result)
                if progress is not None:
                    progress(game + 1, result)
    else:
        for game in range(config.games):
            play_and_learn(w, config, rng, result)
            if progress is not None:
                progress(game + 1, result)
    try:
        result.weights = AlphaloneWeights(tuple(w[BLACK].tolist()), tuple(w[WHITE].tolist()))
    except WeightsError as exc:
        raise AlphaloneTDError(f"training left unusable weights: {exc}") from None
    result.seconds = time.perf_counter() - t0
    return result


# --------------------------------------------------------------------------- options as text


def _number(text: str, option: str, kind: type = float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise AlphaloneTDError(f"{option} must be a number, not {text!r}") from None
    if kind is int:
        if not value.is_integer():
            raise AlphaloneTDError(f"{option} must be a whole number, not {text!r}")
        return int(value)
    return value


def config_from_args(args: argparse.Namespace) -> TDConfig:
    return TDConfig(
        eta=_number(args.eta, "--eta"),
        games=_number(args.games, "--games", int),
        layout=args.layout,
        seed=_number(args.seed, "--seed", int),
        gamma=_number(args.gamma, "--gamma"),
        scale=None if args.scale is None else _number(args.scale, "--scale"),
        max_plies=None if args.max_plies is None else _number(args.max_plies, "--max-plies", int),
        clip=_number(args.clip, "--clip"),
        explore=None if args.explore is None else _number(args.explore, "--explore"),
        inline_only=args.inline_only or args.moves == "inline",
        method=args.method,
        features=args.features,
        white_side=args.white_side,
        terminal=args.terminal,
    )
