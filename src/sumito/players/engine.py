"""``engine``: Sumito's own player, the strongest in the project.

Iterative-deepening PVS with a transposition table, move ordering, null-move pruning, late-move
reductions and a push-off quiescence search (see :mod:`sumito.search.pvs`), over a pluggable
evaluation: by default the shipped efficiently updatable network (``nnue=builtin-nnue``, whose
accumulator the search updates move by move; :mod:`sumito.evaluation.nnue`) on the board it knows,
else our hand-set linear evaluation (material first, then centre, cohesion, the edge and lines of
three), which ``nnue=none`` asks for on every board; or any named evaluation of
:mod:`sumito.evaluation` (``eval=``, ``weights=``), a value network (``net=``) or another NNUE file.

Time control: ``time`` seconds a move (default 1), or a fixed ``depth`` in plies, or both (the
first reached stops the search); a caller's clock (``movetime``) caps the time further.
``multipv=N`` searches the best N moves with exact scores (analysis; it costs play time).
``threads=N`` searches with N threads (Lazy SMP; by default the cores available, at most 8, and one in
worker processes). ``contempt`` (what a draw costs it) and ``trade`` (converting: what each marble off
the board is worth to the side ahead, off by default) are in marbles, the same in every evaluation that
has one. ``threats=1`` adds the threat search against a last marble (a side a marble from losing is
extended like a check; off by default: its SPRT at 0.1 s found it weaker); ``rules=0`` gives the search
without the game's draw rules (any repetition a draw and no other draw rule), kept to measure against.
:meth:`EnginePlayer.analyse` is the search behind :meth:`~EnginePlayer.choose`, for analysis and
the protocol: the same search, with MultiPV and a per-iteration callback (:attr:`on_iteration`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence

import numpy as np

from sumito.bounds import MAX_WEIGHT, read_number
from sumito.evaluation import EVAL_LINEAR, LINEAR_TERMS, Evaluation, evaluation_names, named_evaluation
from sumito.evaluation.features import EVAL_ALPHALONE, EVAL_NETWORK, EVAL_NNUE
from sumito.evaluation.learned import HEADER, SCALE
from sumito.evaluation.nnue import BUILTIN_NNUE, NNUE, NO_NNUE, NNUEError, load_network
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.models.learned import network_params
from sumito.models.network import ValueNetwork, network_path
from sumito.models.zero.network import PolicyValueNetwork, ZeroNetworkError
from sumito.players.base import (
    MAX_HASH_MB,
    MAX_SEARCH_DEPTH,
    MAX_SEARCH_NODES,
    MAX_SEARCH_SECONDS,
    Option,
    PlayerBase,
    PlayerKind,
    PlayerSpecError,
    legal_codes,
    register,
)
from sumito.players.zero import zero_network_path
from sumito.procs import SEARCH_THREADS_ENV, available_cores
from sumito.search.context import SearchContext
from sumito.search.pvs import (
    DEFAULT_CONTEMPT_LEAD,
    DEFAULT_PRESS,
    DEFAULT_PRESS_AFTER,
    DEFAULT_PRUNE,
    DEFAULT_RULES,
    DEFAULT_THREATS,
    DEFAULT_TRADE,
    DEFAULT_TRADE_AFTER,
    MAX_THREADS,
    PRESS_LEAD,
    Searcher,
    SearchResult,
)

#: what a draw costs the engine, in marbles (its ``contempt=`` option; the same in every evaluation that
#: has a marble: the linear evaluation's material weight, a network's 1000 points). A quarter marble, by an
#: SPRT (docs/strength-ledger.md): no weaker than 0.02 against an equal player, and it takes fewer level
#: repetitions against weaker ones
DEFAULT_CONTEMPT = 0.25

#: seconds a move of an engine whose spec gives neither ``time`` nor ``depth``
DEFAULT_TIME = 1.0

#: the most threads an engine takes by default (``threads=`` sets more, up to MAX_THREADS)
DEFAULT_MAX_THREADS = 8


def default_threads() -> int:
    """How many threads an engine searches with when its spec does not say: ``$SUMITO_THREADS`` if set
    (worker processes of matches, tournaments and the web set it to 1: their pool already uses the cores),
    else the cores this process may run on, at most :data:`DEFAULT_MAX_THREADS`."""
    text = os.environ.get(SEARCH_THREADS_ENV, "")
    if text:
        if not (text.isascii() and text.isdigit() and 1 <= int(text[:4]) <= MAX_THREADS and len(text) <= 4):
            raise PlayerSpecError(f"${SEARCH_THREADS_ENV} must be a whole number from 1 to {MAX_THREADS}, "
                                  f"not {text[:20]!r}")
        return int(text)
    return min(available_cores(), DEFAULT_MAX_THREADS)


#: the most MultiPV lines (more than any position has moves would be pointless; the search clips it)
MAX_MULTIPV = 256


#: the bytes of one transposition-table entry: its key, its move, depth and bound, and its score
TABLE_ENTRY_BYTES = 8 + 4 + 8


def table_entries(hash_mb: int) -> int:
    """The entries of an engine's table of ``hash_mb`` MB (``hash=``): a power of two, at most that size
    (a little under, with about 22 bytes counted an entry), at least 1,024."""
    return 1 << max(10, int(np.log2(hash_mb * 2**20 / 22)))


class EnginePlayer(PlayerBase):
    def __init__(
        self,
        time: float | None = None,
        depth: int | None = None,
        eval: str | None = None,
        hash: int = 32,
        weights: str | None = None,
        contempt: float = DEFAULT_CONTEMPT,
        net: str | None = None,
        multipv: int = 1,
        aspiration: float = 0.0,
        nnue: str | None = None,
        prune: int = DEFAULT_PRUNE,
        threats: int = DEFAULT_THREATS,
        rules: int = DEFAULT_RULES,
        threads: int | None = None,
        trade: float = DEFAULT_TRADE,
        nodes: int | None = None,
        trade_after: int = DEFAULT_TRADE_AFTER,
        trade_above: float | None = None,
        zero: str | None = None,
        press: float = DEFAULT_PRESS,
        press_after: int = DEFAULT_PRESS_AFTER,
        contempt_lead: float = DEFAULT_CONTEMPT_LEAD,
    ) -> None:
        if not 1 <= multipv <= MAX_MULTIPV:
            raise PlayerSpecError(f"engine multipv must be from 1 to {MAX_MULTIPV}, not {multipv}")
        if depth is not None and depth < 1:
            raise PlayerSpecError(f"engine depth must be at least 1, not {depth}")
        if nodes is not None and not 1 <= nodes <= MAX_SEARCH_NODES:
            raise PlayerSpecError(f"engine nodes must be from 1 to {MAX_SEARCH_NODES:,}, not {nodes}")
        if time is not None and not (math.isfinite(time) and time > 0):
            raise PlayerSpecError(f"engine time must be a positive number of seconds, not {time}")
        if not math.isfinite(contempt):
            raise PlayerSpecError(f"engine contempt must be a finite number, not {contempt}")
        if not 1 <= hash <= 4096:
            raise PlayerSpecError(f"engine hash must be between 1 and 4096 MB, not {hash}")
        try:
            self.evaluation = named_evaluation(eval or "linear")
        except ValueError as exc:
            raise PlayerSpecError(f"engine: {exc}") from None
        if self.evaluation.kind == EVAL_ALPHALONE:
            # its two colours' weight sets are not negatives of each other: negamax needs a
            # zero-sum score (use the alphalone player, or greedy:eval=alphalone)
            raise PlayerSpecError("engine: the alphalone evaluation is not zero-sum; the engine's search needs one")
        if weights is not None:
            self.evaluation = _with_weights(self.evaluation, weights)
        self.net = None if net is None else network_path(net)
        self._net_params: dict[tuple[int, int, int], np.ndarray] = {}
        if self.net is not None:
            if weights is not None or eval is not None:
                raise PlayerSpecError("engine: give either net= or eval=/weights=, not both")
            ValueNetwork.load(self.net)  # a bad file fails now, not mid-game; it is fitted to each board later
            self.evaluation = Evaluation(f"net {net}", EVAL_NETWORK, np.zeros(HEADER))
        self.zero: PolicyValueNetwork | None = None
        if zero is not None:
            if weights is not None or eval is not None or net is not None:
                raise PlayerSpecError("engine: give either zero= or net=/eval=/weights=, not several")
            try:
                self.zero = PolicyValueNetwork.load(zero_network_path(zero))
                self.evaluation = Evaluation(f"zero {zero}", EVAL_NETWORK, self.zero.search_params())
            except ZeroNetworkError as exc:
                raise PlayerSpecError(f"engine: {exc}") from None
        self.nnue: NNUE | None = None
        self._fallback: Searcher | None = None  # the hand-set evaluation's, for boards the network does not know
        named_other = weights is not None or eval is not None or net is not None or zero is not None
        if nnue is None and not named_other:
            nnue = BUILTIN_NNUE  # the strongest evaluation, unless another is named (nnue=none: the hand-set one)
        elif nnue == NO_NNUE:
            nnue = None
        if nnue is not None:
            if named_other:
                raise PlayerSpecError("engine: give either nnue= or net=/eval=/weights=/zero=, not several")
            try:
                self.nnue = load_network(nnue)
            except NNUEError as exc:
                raise PlayerSpecError(f"engine: {exc}") from None
            self.evaluation = Evaluation(f"nnue {nnue}", EVAL_NNUE, self.nnue.params())
        if time is None and depth is None and nodes is None:
            time = DEFAULT_TIME
        self.time = time
        self.depth = depth
        self.nodes = nodes
        entries = table_entries(hash)
        if not (math.isfinite(aspiration) and aspiration >= 0):
            raise PlayerSpecError(f"engine aspiration must be 0 (off) or a positive width, not {aspiration}")
        if prune not in (0, 1):
            raise PlayerSpecError(f"engine prune must be 0 or 1, not {prune}")
        if threats not in (0, 1):
            raise PlayerSpecError(f"engine threats must be 0 or 1, not {threats}")
        if rules not in (0, 1):
            raise PlayerSpecError(f"engine rules must be 0 or 1, not {rules}")
        if not (math.isfinite(trade) and 0 <= trade <= 10):
            raise PlayerSpecError(f"engine trade must be from 0 to 10 marbles, not {trade}")
        if trade_above is not None and not (math.isfinite(trade_above) and 0 <= trade_above <= 100):
            raise PlayerSpecError(f"engine trade_above must be from 0 to 100 marbles, not {trade_above}")
        if not (math.isfinite(press) and 0 <= press <= 10):
            raise PlayerSpecError(f"engine press must be from 0 to 10 marbles, not {press}")
        if not (math.isfinite(contempt_lead) and 0 <= contempt_lead <= 10):
            raise PlayerSpecError(f"engine contempt_lead must be from 0 to 10 marbles, not {contempt_lead}")
        # in marbles, as contempt; the searchers take them in their evaluation's points
        self.trade, self.press, self.contempt_lead = trade, press, contempt_lead
        self.press_after = press_after
        self.trade_above = trade_above  # in marbles, or None
        self.contempt = contempt  # in marbles; the searchers take it in their evaluation's points
        if threads is not None and not 1 <= threads <= MAX_THREADS:
            raise PlayerSpecError(f"engine threads must be from 1 to {MAX_THREADS}, not {threads}")
        self.searcher = self._searcher(self.evaluation.kind, self.evaluation.params, entries, self.marble_value,
                                       aspiration, prune, threats, rules, threads or default_threads(), trade_after)
        parts = []
        if time is not None:
            parts.append(f"time={time:g}")
        if depth is not None:
            parts.append(f"depth={depth}")
        if nodes is not None:
            parts.append(f"nodes={nodes}")
        if eval is not None and self.evaluation.name != "linear":
            parts.append(f"eval={self.evaluation.name}")
        if weights is not None:
            parts.append(f"weights={weights}")
        if contempt != DEFAULT_CONTEMPT:
            parts.append(f"contempt={contempt:g}")
        if net is not None:
            parts.append(f"net={net}")
        if zero is not None:
            parts.append(f"zero={zero}")
        if nnue is not None:
            parts.append(f"nnue={nnue}")
        elif net is None and zero is None and weights is None and self.evaluation.name == "linear":
            parts.append(f"nnue={NO_NNUE}")  # so that a name never leaves which evaluation it played with open
        # the options set away from their defaults, in this order (a journal's games are keyed by the name)
        for option, value, default in (
            ("multipv", multipv, 1), ("aspiration", aspiration, 0.0), ("prune", prune, DEFAULT_PRUNE),
            ("threats", threats, DEFAULT_THREATS), ("rules", rules, DEFAULT_RULES), ("threads", threads, None),
            ("trade", trade, DEFAULT_TRADE), ("trade_after", trade_after, DEFAULT_TRADE_AFTER),
            ("trade_above", trade_above, None), ("press", press, DEFAULT_PRESS),
            ("press_after", press_after, DEFAULT_PRESS_AFTER), ("contempt_lead", contempt_lead, DEFAULT_CONTEMPT_LEAD),
        ):
            if value != default:
                parts.append(f"{option}={value:g}")
        self.multipv = multipv
        #: called after each completed iteration of :meth:`choose` or :meth:`analyse` (in the thread
        #: that searches) with what the search found so far; the protocol streams its info lines so
        self.on_iteration: Callable[[SearchResult], None] | None = None
        self.name = "engine:" + ",".join(parts)
        self.last: SearchResult | None = None
        self.search_info: str | None = None  # the last search, as `sumito engine` reports it

    def _searcher(self, kind: int, params: np.ndarray, entries: int, marble: float, aspiration: float, prune: int,
                  threats: int, rules: int, threads: int, trade_after: int) -> Searcher:
        """A searcher for an evaluation whose marble is ``marble`` points, with this engine's options in
        marbles (contempt, trade, trade_above) in those points: the main one, and the hand-set one on a
        board the NNUE does not know."""
        return Searcher(kind, params, entries, self.contempt * marble, aspiration, prune, threats, rules, threads,
                        self.trade * marble, trade_after,
                        None if self.trade_above is None else self.trade_above * marble,
                        press=self.press * marble, press_after=self.press_after,
                        contempt_lead=self.contempt_lead * marble)

    @property
    def marble_value(self) -> float:
        """What one marble is worth in this engine's scores: the linear evaluation's material weight,
        1000 for a network (see :mod:`sumito.models.learned`); 1 for the papers' evaluations,
        whose scores are not in marbles."""
        if self.evaluation.kind == EVAL_LINEAR:
            weight = float(self.evaluation.params[0])
            return weight if weight > 0 else 1.0
        if self.evaluation.kind in (EVAL_NETWORK, EVAL_NNUE):
            return SCALE
        return 1.0

    def marble_value_on(self, side: int) -> float:
        """:attr:`marble_value` of the evaluation that scores positions on the board of ``side`` cells
        a side: the hand-set evaluation's where the NNUE does not know the board (see :meth:`analyse`)."""
        network = self.nnue or self.zero
        if network is not None and side != network.side:
            return float(named_evaluation("linear").params[0])
        return self.marble_value

    @property
    def scores_in_marbles(self) -> bool:
        """Whether this engine's scores are marbles (times :attr:`marble_value`): the hand-set
        evaluation's and the networks' are; the papers' evaluations count in their own points."""
        return self.evaluation.kind in (EVAL_LINEAR, EVAL_NETWORK, EVAL_NNUE)

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        limits = [t for t in (self.time, movetime) if t]
        seconds = min(limits) if limits else None
        result = self.analyse(position, seconds=seconds, depth=self.depth or MAX_SEARCH_DEPTH, history=history,
                              draw=draw, nodes=self.nodes)
        return Move(result.move, position.variant.side)

    def _searcher_for(self, position: Position) -> tuple[Searcher, str]:
        """The searcher for ``position``'s board, fitted to it, and a note for the search's report."""
        if self.net is not None:  # the network's inputs depend on the board and its rules
            v = position.variant
            key = (v.side, v.marbles, v.win_threshold)
            if key not in self._net_params:
                self._net_params[key] = network_params(self.net, *key)
            self.searcher.set_params(self._net_params[key])
        searcher, note = self.searcher, ""
        network = self.nnue or self.zero
        if network is not None and position.variant.side != network.side:
            # a network knows one board: on the others the engine searches with the hand-set evaluation
            if self._fallback is None:
                linear = named_evaluation("linear")
                main = self.searcher
                self._fallback = self._searcher(linear.kind, linear.params, len(main.tt_keys), float(linear.params[0]),
                                                main.aspiration, main.prune, main.threats, main.rules, main.threads,
                                                main.trade_after)
            searcher = self._fallback
            what = "NNUE" if self.nnue else "network"
            note = f" (hand-set evaluation: the {what} is for the side-{network.side} board)"
        return searcher, note

    @property
    def table_bytes_to_come(self) -> int:
        """The bytes of the second table this engine makes on its first search on a board its network does
        not know (the hand-set evaluation's, as big as its own); 0 once made, or without a network."""
        if (self.nnue or self.zero) is None or self._fallback is not None:
            return 0
        return len(self.searcher.tt_keys) * TABLE_ENTRY_BYTES

    def share_search(self, other: EnginePlayer) -> None:
        """Search with ``other``'s searchers (its transposition table, helper threads and history) in place of
        this engine's own, which are dropped before they are used: for an engine that differs from ``other``
        in its limits only (``time``, ``depth``, ``nodes``), such as the protocol's player for one ``go``, so
        that one table serves both (not two of up to 4 GB) and each search finds what the other stored."""
        if (other.evaluation.name, other.searcher.threads) != (self.evaluation.name, self.searcher.threads):
            raise ValueError(f"{self.name} and {other.name} search differently; they cannot share a table")
        self.searcher, self._fallback = other.searcher, other._fallback

    def warm_up(self, position: Position) -> None:
        """Load the compiled search for ``position``'s board into this process, off any move's clock."""
        searcher, _ = self._searcher_for(position)
        searcher.warm_up(SearchContext.of(position), legal_codes(position))

    def analyse(
        self,
        position: Position,
        seconds: float | None = None,
        depth: int = MAX_SEARCH_DEPTH,
        history: Sequence[int] | None = None,
        multipv: int | None = None,
        moves: Sequence[int] | None = None,
        predict: bool = True,
        draw: DrawCounters | None = None,
        nodes: int | None = None,
    ) -> SearchResult:
        """Search ``position`` for ``seconds`` (``None``: no clock), to ``depth`` plies or for ``nodes``
        nodes (``None``: no limit), whichever comes first, and return the whole result (MultiPV lines
        included). ``multipv`` defaults to the player's option; ``moves`` (move codes) restricts the
        search to those root moves and then scores even a single one to the full depth (to score a move
        that was played). Without ``predict`` a clock is used to its end (analysis) rather than stopping
        when the next iteration would most likely not finish (play). ``draw``: the game's draw rules and
        counters, so that the search sees a ply-cap or no-capture draw coming."""
        searcher, note = self._searcher_for(position)
        codes = legal_codes(position) if moves is None else np.asarray(moves, dtype=np.int32)
        if len(codes) == 0:
            raise ValueError("no move to search")
        result = searcher.search(
            SearchContext.of(position),
            codes,
            max_depth=depth,
            seconds=seconds,
            history=history,
            multipv=self.multipv if multipv is None else multipv,
            on_iteration=self.on_iteration,
            quick_single=moves is None,
            predict=predict,
            draw=draw,
            nodes=nodes,
        )
        self.last = result
        side = position.variant.side
        pv = " ".join(Move(code, side).notation() for code in result.pv)
        self.search_info = (
            f"depth {result.depth} score {result.score:g} nodes {result.nodes} "
            f"nps {result.nodes_per_second:.0f} time {result.seconds * 1000:.0f}ms pv {pv}{note}"
        )
        return result


def _with_weights(evaluation: Evaluation, text: str) -> Evaluation:
    """The evaluation with its parameters replaced by ``text``: numbers separated by ``/``."""
    read = [read_number(x.strip()) for x in text.split("/")]  # (sumito.bounds: one syntax for every number)
    values = [v for v in read if v is not None]
    if len(values) < len(read) or not all(abs(v) <= MAX_WEIGHT for v in values):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise PlayerSpecError(f"engine weights must be finite numbers separated by '/', each of size at most "
                              f"{MAX_WEIGHT:g}, not {shown!r}")
    if len(values) != len(evaluation.params):
        raise PlayerSpecError(
            f"the {evaluation.name} evaluation takes {len(evaluation.params)} weights, not {len(values)}"
            + (f" ({', '.join(LINEAR_TERMS)})" if evaluation.kind == EVAL_LINEAR else "")
        )
    return Evaluation(evaluation.name, evaluation.kind, np.array(values))


register(
    PlayerKind(
        name="engine",
        factory=EnginePlayer,
        options={
            "time": Option(
                float, None, "seconds a move (default 1 when no depth is given)", low=0, high=MAX_SEARCH_SECONDS
            ),
            "depth": Option(int, None, "search depth in plies (fixed depth when no time is given)", low=1,
                            high=MAX_SEARCH_DEPTH),
            "nodes": Option(int, None, "nodes a move (the main thread's; with one thread a search that does not "
                            "depend on the machine or its load, for fair tests)", low=1, high=MAX_SEARCH_NODES),
            "eval": Option(str, None, f"evaluation instead of the NNUE: {', '.join(evaluation_names())}"),
            "hash": Option(int, 32, "transposition table size in MB", low=1, high=MAX_HASH_MB),
            "contempt": Option(float, DEFAULT_CONTEMPT, "what a draw (repetition, ply cap, no-capture limit) costs "
                               "the engine, in marbles", low=-100, high=100),
            "net": Option(
                str, None, "a network file from `sumito train` as the evaluation (builtin, builtin-tdleaf: shipped)",
                path=True,
            ),
            "nnue": Option(str, None, "an NNUE file from `sumito nnue train` as the evaluation; default "
                           f"{BUILTIN_NNUE} (shipped, self-taught; expert-nnue: the one taught by the hand-set engine) "
                           f"unless eval=/weights=/net= name another; {NO_NNUE}: the "
                           "hand-set evaluation; on other boards than the network's, the hand-set evaluation",
                           path=True),
            "zero": Option(str, None, "a network file from `sumito zero train` as the evaluation: its value "
                           "(builtin: the shipped mini-board one); on other boards than the network's, the hand-set "
                           "evaluation", path=True),
            "weights": Option(str, None, f"evaluation weights separated by '/' (linear: {'/'.join(LINEAR_TERMS)})"),
            "multipv": Option(int, 1, "search the best N moves with exact scores (for analysis; slower)", low=1,
                              high=MAX_MULTIPV),
            "aspiration": Option(float, 0.0, "aspiration window from depth 5, in evaluation units (a marble is "
                                 "1000 with the linear evaluation); 0 = full windows", low=0, high=1e6),
            "prune": Option(int, DEFAULT_PRUNE, "search: 1 with table cutoffs and null moves in null-window nodes; "
                            "0 without (null-window nodes searched as PV nodes, kept to measure against)",
                            low=0, high=1),
            "threats": Option(int, DEFAULT_THREATS, "1: threats against a side's last marble are seen (extended, "
                              "all replies and quiet threats in quiescence), at a cost in depth; 0 (the default: "
                              "its SPRT at 0.1 s found it weaker) without", low=0, high=1),
            "threads": Option(int, None, "search threads (Lazy SMP over a shared table); default: the cores "
                              f"available, at most {DEFAULT_MAX_THREADS}, or $SUMITO_THREADS (1 in match and web "
                              "workers); 1 is deterministic", low=1, high=MAX_THREADS),
            "trade": Option(float, DEFAULT_TRADE, "converting: what each marble off the board is worth to the side "
                            "that has pushed off more, in marbles (0: off)", low=0, high=10),
            "trade_after": Option(int, DEFAULT_TRADE_AFTER, "converting: trade= counts only once the game has gone "
                                  "this many plies without a push-off (0: always)", low=0, high=10_000),
            "trade_above": Option(float, None, "converting: trade= counts only while the engine's own last search "
                                  "(its previous move) scored at least this many marbles (default: always)",
                                  low=0, high=100),
            "contempt_lead": Option(float, DEFAULT_CONTEMPT_LEAD, "what a draw costs the engine more for each "
                                    "marble it leads by, in marbles (0: contempt= alone)", low=0, high=10),
            "press": Option(float, DEFAULT_PRESS, "converting a stalled game: what each push (an inline move that "
                            "moves opposing marbles) the side to move has beyond the other's is worth, in marbles, "
                            f"once the engine leads by {PRESS_LEAD} or more and press_after= plies have gone "
                            "without a push-off (0: off)", low=0, high=10),
            "press_after": Option(int, DEFAULT_PRESS_AFTER, "converting: press= counts only once the game has gone "
                                  "this many plies without a push-off", low=0, high=10_000),
            "rules": Option(int, DEFAULT_RULES, "1: the search plays to the game's draw rules (threefold repetition "
                            "as the game counts it, the ply cap, the no-capture limit); 0: any repetition is a draw, "
                            "nothing else (kept to measure against)", low=0, high=1),
        },
        help="Sumito's engine: iterative-deepening PVS with a transposition table and quiescence",
    )
)
