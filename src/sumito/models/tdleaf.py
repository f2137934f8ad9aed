"""TD-Leaf(λ) for Abalone: the engine's search over the training network, and the leaf of its
principal variation (see :mod:`sumito.learn.training` for the learning rule).

The search is the engine's own (:class:`sumito.search.pvs.Searcher`, iterative-deepening PVS
with quiescence) with the network evaluation of :mod:`sumito.models.learned`, whose score
for the side to move is ``SCALE·(material − V(board, me = opponent))``: at a horizon node with the
opponent to move this is minus the searching side's ``SCALE·(M + V(its afterstate))``, the
quantity TD-Leaf's leaves estimate. The weights change after every move, so the current
``theta`` is copied into the searcher's parameter vector before each search, and the
transposition table and history counts are cleared too: a search then depends only on the
position, the game's earlier positions (repetitions score a draw, contempt 0) and the weights,
never on earlier searches, which keeps training deterministic and a resumed run exact.

The principal variation is read back from the transposition table (checked move by move for
legality), cut to ``depth`` plies, and then back to the searching side's last move, or to the
move that wins the game; what remains is played on a copy of the board and encoded from the
searching side's view, like a training afterstate.
"""

from __future__ import annotations

import numpy as np

from sumito.evaluation.features import EVAL_NETWORK
from sumito.evaluation.learned import HEADER
from sumito.games.abalone import Game, Move, Position
from sumito.games.abalone.kernels import PUSH_OFF_BIT, make_move
from sumito.games.abalone.variants import Variant
from sumito.models.abalone_encodings import encode_batch_into
from sumito.models.game import Leaf
from sumito.models.learned import network_params_of
from sumito.models.network import ValueNetwork
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher

HASH_ENTRIES = 1 << 16  # a few-ply search needs little; cleared before every search


class LeafSearch:
    """A searcher over one (changing) network on one variant's boards."""

    def __init__(
        self, network: ValueNetwork, encoding: str, variant: Variant, hash_entries: int = HASH_ENTRIES
    ) -> None:
        self.network = network
        self.encoding = encoding
        self.variant = variant
        params = network_params_of(network, variant.side, variant.marbles, variant.win_threshold)
        # prune=0: the search builtin-tdleaf was trained with, so that training reproduces it
        # the search its network was trained with: no threat search, any repetition a draw (threats=0, rules=0)
        self.searcher = Searcher(EVAL_NETWORK, params, hash_entries, contempt=0.0, prune=0, threats=0, rules=0)
        self._out = np.empty((1, network.n_inputs), dtype=np.float64)

    def search(self, position: Position, depth: int, history: list[int]) -> list[int]:
        """The principal variation of a ``depth``-ply search of ``position`` with the current
        weights (``history``: the hashes of the game's earlier positions, oldest first)."""
        searcher = self.searcher
        searcher.params[HEADER:] = self.network.theta
        searcher.clear()
        codes = position.legal_move_codes()
        result = searcher.search(
            SearchContext.of(position),
            codes,
            max_depth=depth,
            seconds=None,
            history=np.array(history, np.uint64),
            predict=False,
        )
        return result.pv[:depth]

    def leaf(self, game: Game, depth: int, first: int | None = None) -> Leaf:
        """The PV leaf of a ``depth``-ply search from the game's position, for the side to move;
        with ``first``, that move is played first and the opponent's reply line comes from a
        ``depth − 1``-ply search of the position after it."""
        position = game.position
        history = [p.zobrist for p in game.positions[:-1]]
        if first is None:
            line = self.search(position, depth, history)
        else:
            after = position.play(Move(int(first), position.variant.side))
            line = [int(first)]
            if depth > 1 and after.winner() is None and after.count_legal_moves() > 0:
                line += self.search(after, depth - 1, [*history, position.zobrist])
        return self._leaf_of(position, line)

    def _leaf_of(self, position: Position, line: list[int]) -> Leaf:
        """Play ``line`` on a copy of the board up to the searching side's last move (or its win)
        and encode that position from its view."""
        geo = position.geometry
        me = position.side_to_move
        win = self.variant.win_threshold
        board = position.grid.copy()
        lost = np.array(position.lost, dtype=np.int64)
        side = me
        leaf_board, leaf_lost, leaf_plies, won = board.copy(), lost.copy(), 0, False
        for ply, mv in enumerate(line):
            make_move(board, np.int32(mv), side, geo.offsets, geo.zobrist)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] += 1
            over = lost[0] >= win or lost[1] >= win
            if side == me:
                leaf_board[:], leaf_lost[:], leaf_plies = board, lost, ply + 1
                won = over
            if over:
                break  # a win for ``me`` ends the line there; a loss cuts it back to ``me``'s last move
            side = 3 - side
        encode_batch_into(self.encoding, leaf_board[None, :], leaf_lost[None, :], me, geo, self._out, self.variant)
        material = float(leaf_lost[2 - me] - leaf_lost[me - 1])
        return Leaf(int(line[0]), self._out[0].copy(), material, bool(won), tuple(int(m) for m in line[:leaf_plies]))
