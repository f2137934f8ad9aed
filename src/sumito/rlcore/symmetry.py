"""The 12 symmetries of the hexagonal board (6 rotations, each with and without a reflection) acting on
what the environments exchange: observation planes, actions, per-action arrays (masks, policies) and
positions — for AlphaZero-style augmentation, where a position, its policy and its value become 12.

The rules are the same under each symmetry, so they commute with them: for a position ``p``, an
action ``a`` and a symmetry ``k``, ``sym.actions(mask(p), k) == mask(sym.position(p, k))``,
``sym.observation(observe(p), k) == observe(sym.position(p, k))`` and playing ``sym.action(a, k)`` in
``sym.position(p, k)`` gives ``sym.position(p after a, k)`` (``tests/test_rl.py`` checks all three).
The cell permutations are the engine's (:func:`sumito.games.abalone.geometry.symmetries`, which the NNUE
trainer's augmentation uses too): symmetry 0 is the identity, 1-5 the turns by 60° steps, 6-11 a
reflection followed by each turn.

    sym = board_symmetries(5)
    for k in range(len(sym)):
        planes_k, policy_k = sym.observation(planes, k), sym.actions(policy, k)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from sumito.games.abalone import Position
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import OFF, geometry, opposite, symmetries
from sumito.rlcore.actions import action_space, move_key


@dataclass(frozen=True, eq=False)
class BoardSymmetries:
    """The symmetries of the side-``side`` board (see the module's docstring); build it with
    :func:`board_symmetries`. ``k`` is a symmetry's number, 0..11."""

    side: int
    grid: np.ndarray = field(repr=False)  # int64 [12, W*W]: the grid index each on-board cell goes to (-1 off it)
    action_map: np.ndarray = field(repr=False)  # int64 [12, n]: the action each action goes to
    square_source: np.ndarray = field(repr=False)  # int64 [12, rows*rows]: the plane square each square comes from

    def __len__(self) -> int:
        return len(self.action_map)

    def action(self, action: int, k: int) -> int:
        """The image of ``action`` under symmetry ``k``."""
        return int(self.action_map[k, action])

    def actions(self, values: np.ndarray, k: int) -> np.ndarray:
        """An array indexed by action along its last axis (a legal-action mask, a policy), moved by
        symmetry ``k``: ``out[..., action(a, k)] = values[..., a]``."""
        out = np.empty_like(values)
        out[..., self.action_map[k]] = values
        return out

    def observation(self, planes: np.ndarray, k: int) -> np.ndarray:
        """Observation planes ``(..., rows, rows, channels)`` (one observation or a batch) moved by symmetry
        ``k``: each cell's values go to its image; the constant planes and the off-board corners stay."""
        rows = 2 * self.side - 1
        if planes.shape[-3:-1] != (rows, rows):
            raise ValueError(f"observation planes of the side-{self.side} board are (..., {rows}, {rows}, channels), "
                             f"not {planes.shape}")
        flat = planes.reshape(*planes.shape[:-3], rows * rows, planes.shape[-1])
        return flat[..., self.square_source[k], :].reshape(planes.shape)

    def position(self, position: Position, k: int) -> Position:
        """``position`` with its marbles moved by symmetry ``k`` (the same side to move, lost marbles, move number)."""
        grid = np.full_like(position.grid, OFF)
        on_board = self.grid[k] >= 0
        grid[self.grid[k][on_board]] = position.grid[on_board]
        return Position(grid, position.side_to_move, position.lost, position.move_number, position.variant)

    def inverse(self, k: int) -> int:
        """The symmetry that undoes symmetry ``k``."""
        identity = np.arange(self.action_map.shape[1])
        return next(j for j in range(len(self)) if np.array_equal(self.action_map[j][self.action_map[k]], identity))


@cache
def board_symmetries(side: int) -> BoardSymmetries:
    """The 12 symmetries of the board with ``side`` cells a side, on its observations and actions."""
    geo = geometry(side)
    space = action_space(side)
    rows = geo.rows
    perms = symmetries(side)
    grid = np.full((len(perms), geo.width * geo.width), -1, dtype=np.int64)
    grid[:, geo.cells] = geo.cells[perms]
    centre = geo.grid_index(side - 1, side - 1)
    square = [r * rows + d for r, d in (geo.row_diag(int(g)) for g in geo.cells)]
    action_map = np.empty((len(perms), space.n), dtype=np.int64)
    square_source = np.tile(np.arange(rows * rows), (len(perms), 1))  # the off-board corners stay
    for k in range(len(perms)):
        g = grid[k]
        # a symmetry is linear: it turns every step in one direction into a step in one other direction
        turned = [geo.direction_between(int(g[centre]), int(g[centre + off])) for off in geo.offsets]
        for i, j in enumerate(perms[k]):
            square_source[k, square[j]] = square[i]
        for a, key in enumerate(space.keys.tolist()):
            start = key & K.START_MASK
            direction = turned[(key >> K.DIR_SHIFT) & 7]
            if a < space.n_inline:
                image = K.encode_move(g[start], direction, 0, False, direction, 0, False)
            else:
                count = (key >> K.COUNT_SHIFT) & 3
                axis = (key >> K.LINE_SHIFT) & 7
                first, line = g[start], turned[axis]
                if line >= 3:  # the line now runs the other way: its other end is the first one
                    first, line = g[start + (count - 1) * geo.offsets[axis]], opposite(line)
                image = K.encode_move(first, direction, count, True, line, 0, False)
            action_map[k, a] = space.lookup[move_key(image)]
    assert (action_map >= 0).all() and all(len(set(row.tolist())) == space.n for row in action_map)
    return BoardSymmetries(side, grid, action_map, square_source)
