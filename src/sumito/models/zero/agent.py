"""A policy-value network with its search, on one board: what the ``zero`` player, the analysis and the lab
call (:class:`ZeroAgent`). Each call is one compiled kernel over arrays allocated once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sumito.bounds import MAX_SIMS
from sumito.defaults import C_PUCT, C_SCALE, C_VISIT, CONSIDERED, DIRICHLET_ALPHA, DIRICHLET_FRAC, ZERO_SEARCH_MODES
from sumito.evaluation.zero_value import encode
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.position import Position
from sumito.models.zero.network import PolicyValueNetwork, ZeroNetworkError, evaluate, softmax
from sumito.models.zero.search import GUMBEL, one_ply, search, workspace
from sumito.rlcore.actions import action_space
from sumito.stopping import STOP, call_stoppable


@dataclass(frozen=True)
class SearchResult:
    """What one search found: every legal move's code, the policy target and visits over them (in the move
    generator's order), the index of the move to play, and the search's value for the side to move."""

    codes: np.ndarray
    policy: np.ndarray
    visits: np.ndarray
    chosen: int
    value: float


@dataclass(frozen=True)
class MoveViews:
    """The network's view of every legal move: its code, the raw policy's probability, and its value one ply
    on for the side to move (a win 1); ``value``: the network's value of the position itself."""

    codes: np.ndarray
    prior: np.ndarray
    after: np.ndarray
    value: float


class ZeroAgent:
    """``network`` searching with ``mode`` (``gumbel`` or ``puct``), the search constants above and the
    per-ply ``discount`` of values (1: none; a network trained with one searches with the same)."""

    def __init__(self, network: PolicyValueNetwork, mode: str = "gumbel", considered: int = CONSIDERED,
                 c_visit: float = C_VISIT, c_scale: float = C_SCALE, c_puct: float = C_PUCT,
                 dirichlet_alpha: float = DIRICHLET_ALPHA, dirichlet_frac: float = DIRICHLET_FRAC,
                 discount: float = 1.0) -> None:
        if mode not in ZERO_SEARCH_MODES:
            raise ZeroNetworkError(f"search mode must be one of {', '.join(ZERO_SEARCH_MODES)}, not {mode!r}")
        self.network = network
        self.mode = ZERO_SEARCH_MODES.index(mode)
        self.considered = considered
        self.c_visit, self.c_scale, self.c_puct = c_visit, c_scale, c_puct
        self.dirichlet_alpha, self.dirichlet_frac = dirichlet_alpha, dirichlet_frac
        self.discount = float(discount)
        self.geometry = geometry(network.side)
        self.lookup = action_space(network.side).lookup
        self._sims = 0
        self._ws: tuple = ()
        self._out = (np.zeros(K.MAX_MOVES, dtype=np.int64), np.zeros(K.MAX_MOVES, dtype=np.int32),
                     np.zeros(K.MAX_MOVES), np.zeros(K.MAX_MOVES))
        self._state = np.zeros(1, dtype=np.uint64)

    def check(self, position: Position) -> None:
        net = self.network
        v = position.variant
        if v.side != net.side or v.win_threshold != net.win:
            raise ZeroNetworkError(f"the network plays the side-{net.side} board with {net.win} to win, not side "
                                   f"{v.side} with {v.win_threshold}")

    def workspace(self, sims: int) -> tuple:
        if sims > self._sims:
            self._ws = workspace(sims, self.geometry.width ** 2, self.network.h1, self.network.h2)
            self._sims = sims
        return self._ws

    def kernel_args(self) -> tuple:
        """The network's and the board's arrays, as the kernels take them after the position."""
        net, geo = self.network, self.geometry
        return (net.theta, net.offsets, net.h1, net.h2, geo.cells, geo.offsets, geo.zobrist)

    def search(self, position: Position, sims: int, noise: bool = False, seed: int = 0) -> SearchResult:
        """Search ``position`` with ``sims`` simulations (``noise``: the self-play root noise, seeded)."""
        self.check(position)
        sims = max(1, min(int(sims), MAX_SIMS))
        ws = self.workspace(sims)
        self._state[0] = np.uint64(seed & (2**64 - 1))
        _, out_codes, out_policy, out_visits = self._out
        n, chosen, value = call_stoppable(
            search, position.grid, position.side_to_move, position.lost[0], position.lost[1], *self.kernel_args(),
            position.variant.inline_only, self.network.win, self.lookup, sims, self.mode, noise, self.considered,
            self.c_visit, self.c_scale, self.c_puct, self.discount, self.dirichlet_alpha, self.dirichlet_frac,
            self._state, STOP, *ws, *self._out)
        if n == 0:
            raise ValueError("no legal move to choose from")
        return SearchResult(out_codes[:n].copy(), out_policy[:n].copy(), out_visits[:n].copy(), int(chosen),
                            float(value))

    def views(self, position: Position) -> MoveViews:
        """The raw policy and the one-ply values of every legal move (:class:`MoveViews`)."""
        self.check(position)
        ws = self.workspace(1)
        moves, active, acts, logits, a1, a2 = ws[5:11]
        codes = np.zeros(K.MAX_MOVES, dtype=np.int32)
        after = np.zeros(K.MAX_MOVES)
        root_logits = np.zeros(K.MAX_MOVES)
        n = one_ply(position.grid, position.side_to_move, position.lost[0], position.lost[1], *self.kernel_args(),
                    position.variant.inline_only, self.network.win, self.lookup, self.discount, moves, active, acts,
                    logits, a1, a2, codes, after, root_logits)
        if n == 0:
            raise ValueError("no legal move to choose from")
        prior = np.zeros(n)
        softmax(root_logits, n, prior)
        return MoveViews(codes[:n].copy(), prior, after[:n].copy(), self.value(position))

    def value(self, position: Position) -> float:
        """The network's value of ``position`` for the side to move."""
        net = self.network
        ws = self.workspace(1)
        active, logits, a1, a2 = ws[6], ws[8], ws[9], ws[10]
        side = position.side_to_move
        own, other = position.lost[side - 1], position.lost[2 - side]
        na = encode(position.grid, side, own, other, self.geometry.cells, net.win, active)
        return float(evaluate(net.theta, net.offsets, net.h1, net.h2, active, na, np.zeros(0, dtype=np.int64), 0,
                              logits, a1, a2))


__all__ = ["GUMBEL", "ZERO_SEARCH_MODES", "MoveViews", "SearchResult", "ZeroAgent"]
