"""TD learning of the Alphalone player's weights (Hakim & Zhou, section 3.4; Tables 1–2's agents).

The evaluation is linear, ``V_c(s) = w_c · f(s)``, over the report's ten features
(:data:`~sumito.evaluation.features.ALPHALONE_FEATURES`), with one weight vector per colour
``c``, each scoring positions from its own side. The weights are learned by TD(0) from games
that the current weights play against themselves (Black with Black's weights, White with
White's), as the report trains its agents: the same initial weights for both players, γ = 0.2,
a step size η, and 100 "iterations", which here are 100 training games.

**Reward.** The report's utility of a state, ``U(s) = N · (whiteOff⁴ − blackOff⁴)``, is Black's
reward; White's is its negative (each colour learns from its own side). ``N`` is left free by
the report ("a scaling integer that can be adjusted according to the feature weights"). Ours
defaults to ``160 / win⁴`` (:func:`default_scale`), so that a win is worth 160 on every board:
on the mini board (2 marbles to win) that is N = 10, where one marble off is worth 10, about
what the hand-set weights give it (10 to 12); on the small board (5 to win) N = 0.256 (with
N = 10 there the rewards reach 6250 and the weights run into the clip). N need not be a
whole number here.

**Which positions.** Each colour learns on its own *afterstates*: the positions just after each
of its moves, which are what its 1-ply policy scores. For colour ``c`` with successive
afterstates ``s`` and ``s'`` (``s'`` is one reply and one move of ``c`` later), the update is

    δ = r + γ · V_c(s') − V_c(s),   r = U_c(s'),   w_c ← w_c + η · δ · f(s)

online, after every move. When the game ends (a side has pushed off the winning marble), both
colours make a last update from their last afterstate to the final position, with ``V = 0``
there (terminal) and ``r = U_c(final)``. A game stopped by the ply cap or by a threefold
repetition is truncated: no update reaches past the last afterstate (a draw is not a terminal
state the utility knows).

**Game policy.** One ply, greedy over the afterstates under the colour's current weights (a
winning push-off first), choosing at random between the two best moves with probability 1/2
(``explore``): the report's own cure for move loops (its player does the same between its two
best root moves), and here the only source of variety between training games. The alphalone
search (depth 2 = 4 plies) is not used while learning: with 1 ply a hundred games take about a
second on the mini board.

**Initial weights** (:data:`HAND_SET_BLACK`, :data:`HAND_SET_WHITE`): hand-set, the same for
both players, each from its own side — for Black: marbles off −10 (own) / +12 (White's), edge
−1 / +2, average distance from the centre −1 / +2, coherence +2 / −1, divide and conquer
("break") +2 / 0; White's are the mirror. The report's authors also start from hand-set
weights they do not list; the published learned ones (``default_weights()``) keep Black's
marbles-off weights at exactly −10 and +12, which suggests this start.

**Clipping.** After every update each weight is clipped to ``[−clip, clip]`` (default 100), so
that a large step size cannot run away; with the defaults it rarely binds (``clipped`` in the
result counts the updates where it did).

Everything random comes from one ``numpy`` generator seeded by ``seed``: the same configuration
gives the same weights, bit for bit. The result is an :class:`AlphaloneWeights` file, which
``alphalone:weights=PATH`` plays.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sumito.engine import BLACK, WHITE, Move, Position, SumitoError, get_layout
from sumito.evaluation.alphalone import AlphaloneWeights, WeightsError
from sumito.evaluation.features import (
    ALPHALONE_FEATURES,
    EVAL_ALPHALONE,
    N_ALPHALONE,
    alphalone_features,
    raw_features,
    work_arrays,
)
from sumito.search.alphabeta import after_values
from sumito.search.context import SearchContext

GAMMA = 0.2  # the report's discount
WIN_UTILITY = 160.0  # the default N makes a win worth this: N = WIN_UTILITY / win_threshold⁴
DEFAULT_GAMES = 100  # the report's "100 iterations"
DEFAULT_MAX_PLIES = 200  # training games longer than this are cut (truncated, no terminal update)
DEFAULT_CLIP = 100.0
DEFAULT_EXPLORE = 0.5  # probability of playing the second-best move instead of the best
REPORT_ETAS = (1e-2, 1e-3, 1e-4, 1e-5)  # the step sizes of the report's agents 1–4

# Hand-set initial weights, the same for both players (each from its own side); the order is
# ALPHALONE_FEATURES: black_off, white_off, black_edge, white_edge, black_average_distance,
# white_average_distance, black_coherence, white_coherence, black_break, white_break.
HAND_SET_BLACK = (-10.0, 12.0, -1.0, 2.0, -1.0, 2.0, 2.0, -1.0, 2.0, 0.0)
HAND_SET_WHITE = (12.0, -10.0, 2.0, -1.0, 2.0, -1.0, -1.0, 2.0, 0.0, 2.0)


class AlphaloneTDError(SumitoError):
    """A bad setting of Alphalone TD training."""


def initial_weights() -> AlphaloneWeights:
    """The hand-set starting weights (see the module's notes)."""
    return AlphaloneWeights(HAND_SET_BLACK, HAND_SET_WHITE)


def default_scale(win_threshold: int) -> float:
    """The default N for a board where ``win_threshold`` marbles win: a win is worth 160 (mini: 10)."""
    return WIN_UTILITY / win_threshold**4


def utility(lost_black: int, lost_white: int, color: int, scale: float) -> float:
    """The report's utility ``N·(whiteOff⁴ − blackOff⁴)`` for Black, its negative for White."""
    u = scale * (float(lost_white) ** 4 - float(lost_black) ** 4)
    return u if color == BLACK else -u


def features(position: Position, raw: np.ndarray | None = None) -> np.ndarray:
    """The ten Alphalone features of ``position`` (float64[10], in ALPHALONE_FEATURES order)."""
    if raw is None:
        raw, _ = work_arrays()
    geo = position.geometry
    raw_features(position.grid, geo.cells, geo.ring, geo.offsets, geo.side - 1, raw, True)
    out = np.zeros(N_ALPHALONE, dtype=np.float64)
    alphalone_features(raw, position.lost[0], position.lost[1], out)
    return out


def td_update(
    w: np.ndarray,
    f: np.ndarray,
    reward: float,
    f_next: np.ndarray | None,
    *,
    eta: float,
    gamma: float = GAMMA,
    clip: float | None = DEFAULT_CLIP,
) -> tuple[np.ndarray, float]:
    """One TD(0) step of the linear value ``w·f``: the new weights and the TD error δ.

    ``δ = reward + γ·w·f_next − w·f`` (``f_next`` None: a terminal state, worth 0), then
    ``w + η·δ·f``, clipped to ``[−clip, clip]`` (``clip`` None: no clipping).
    """
    v = float(w @ f)
    v_next = 0.0 if f_next is None else float(w @ f_next)
    delta = reward + gamma * v_next - v
    new = w + eta * delta * f
    if clip is not None:
        new = np.clip(new, -clip, clip)
    return new, delta


@dataclass(frozen=True)
class TDConfig:
    eta: float = 1e-3
    games: int = DEFAULT_GAMES
    layout: str = "mini"
    seed: int = 0
    gamma: float = GAMMA
    scale: float | None = None  # N; None: default_scale(the layout's win threshold)
    max_plies: int = DEFAULT_MAX_PLIES
    clip: float = DEFAULT_CLIP
    explore: float = DEFAULT_EXPLORE
    inline_only: bool = False
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
        if self.max_plies < 1:
            raise AlphaloneTDError(f"--max-plies must be at least 1, not {self.max_plies}")
        if not (math.isfinite(self.clip) and self.clip > 0):
            raise AlphaloneTDError(f"--clip must be a positive number, not {self.clip:g}")
        if not 0 <= self.explore <= 1:
            raise AlphaloneTDError(f"--explore must be from 0 to 1, not {self.explore:g}")
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


@dataclass
class TDResult:
    weights: AlphaloneWeights
    outcomes: Counter = field(default_factory=Counter)  # "black", "white", "draw"
    plies: int = 0  # summed over the games
    updates: int = 0
    clipped: int = 0  # updates where clipping changed a weight
    seconds: float = 0.0


def _choose(position: Position, params: np.ndarray, rng: np.random.Generator, explore: float) -> int:
    codes = position.legal_move_codes()
    values = after_values(SearchContext.of(position), codes, EVAL_ALPHALONE, params)
    order = np.argsort(-values, kind="stable")
    pick = order[0]
    # a draw from the generator every move keeps the stream independent of the values
    if len(order) > 1 and rng.random() < explore:
        pick = order[1]
    return int(codes[pick])


def play_and_learn(
    w: dict[int, np.ndarray],
    config: TDConfig,
    rng: np.random.Generator,
    result: TDResult,
    trace: list | None = None,
) -> int | None:
    """One training game from the layout's start, updating ``w`` in place; the winner or None.

    ``trace``, when given, receives every update as ``(colour, f, reward, f_next)`` (``f_next``
    None at the end of the game).
    """
    pos = Position.start(config.layout, inline_only=config.inline_only or None)
    raw, _ = work_arrays()
    last: dict[int, np.ndarray | None] = {BLACK: None, WHITE: None}  # each colour's last afterstate features
    seen = Counter([pos.zobrist])
    scale = config.utility_scale
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

    while plies < config.max_plies:
        side = pos.side_to_move
        if pos.count_legal_moves() == 0:
            break  # no move: a draw, truncated
        params = np.concatenate([w[BLACK], w[WHITE]])
        code = _choose(pos, params, rng, config.explore)
        pos = pos.play(Move(code, pos.variant.side))
        plies += 1
        winner = pos.winner()
        if winner is not None:
            learn(side, None, pos)
            learn(3 - side, None, pos)
            break
        f_new = features(pos, raw)
        learn(side, f_new, pos)
        last[side] = f_new
        seen[pos.zobrist] += 1
        if seen[pos.zobrist] >= 3:
            break  # threefold repetition: a draw, truncated
    result.plies += plies
    result.outcomes[{BLACK: "black", WHITE: "white"}.get(winner, "draw")] += 1  # type: ignore[arg-type]
    return winner


def train(config: TDConfig, progress: Callable[[int, TDResult], None] | None = None) -> TDResult:
    """Train both colours' weights by TD(0) over ``config.games`` self-play games."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(config.seed)
    w = {
        BLACK: np.array(config.initial.black, dtype=np.float64),
        WHITE: np.array(config.initial.white, dtype=np.float64),
    }
    result = TDResult(weights=config.initial)
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


# --------------------------------------------------------------------------- command line
def add_alphalone_td_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "alphalone-td",
        help="learn the alphalone player's weights by TD(0) self-play (the Alphalone report, section 3.4)",
    )
    # numbers are parsed here, not by argparse, so that a bad value is one error line
    p.add_argument("--eta", default="1e-3", metavar="ETA", help="step size (the report: 1e-2 to 1e-5; default 1e-3)")
    p.add_argument("--games", default=str(DEFAULT_GAMES), metavar="N", help="training games (default 100)")
    p.add_argument("--layout", default="mini", help="starting layout (default mini, the report's)")
    p.add_argument("--inline-only", action="store_true", help="the report's reduced game with inline moves only")
    p.add_argument("--seed", default="0", metavar="S", help="seed of the move choices (default 0)")
    p.add_argument("--gamma", default=str(GAMMA), metavar="G", help="discount (default 0.2, the report's)")
    p.add_argument(
        "--scale", default=None, metavar="N", help="N in the utility (default 160/win^4, a win worth 160: mini 10)"
    )
    p.add_argument("--max-plies", default=str(DEFAULT_MAX_PLIES), metavar="P", help="cut games at P plies")
    p.add_argument("--clip", default=f"{DEFAULT_CLIP:g}", metavar="C", help="clip weights to [-C, C] (default 100)")
    p.add_argument(
        "--explore", default=str(DEFAULT_EXPLORE), metavar="P", help="chance of the second-best move (default 0.5)"
    )
    p.add_argument("--out", default=None, metavar="FILE", help="the weights file to write (JSON; required)")
    p.add_argument("--quiet", action="store_true", help="print only the file written")
    p.set_defaults(func=cmd_alphalone_td)


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
        max_plies=_number(args.max_plies, "--max-plies", int),
        clip=_number(args.clip, "--clip"),
        explore=_number(args.explore, "--explore"),
        inline_only=args.inline_only,
    )


def cmd_alphalone_td(args: argparse.Namespace) -> int:
    if not args.out:
        raise AlphaloneTDError("--out FILE is required (where to write the weights)")
    config = config_from_args(args)
    result = train(config)
    try:
        result.weights.save(args.out)
    except OSError as exc:
        raise AlphaloneTDError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if not args.quiet:
        o = result.outcomes
        print(
            f"{config.games} games (eta {config.eta:g}, gamma {config.gamma:g}, N {config.utility_scale:g}, "
            f"{config.layout}, seed {config.seed}) in {result.seconds:.1f} s: Black won {o['black']}, "
            f"White {o['white']}, drawn or cut {o['draw']}; {result.plies / config.games:.1f} plies a game, "
            f"{result.updates} updates, {result.clipped} clipped",
            file=sys.stderr,
        )
        width = max(len(n) for n in ALPHALONE_FEATURES)
        print(f"{'feature':{width}}  {'black':>9}  {'white':>9}", file=sys.stderr)
        for name, b, wt in zip(ALPHALONE_FEATURES, result.weights.black, result.weights.white):
            print(f"{name:{width}}  {b:9.4f}  {wt:9.4f}", file=sys.stderr)
    print(args.out)
    return 0
