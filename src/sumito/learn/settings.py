"""The settings of the lab's long runs: what each keeps from attempt to attempt, with its defaults.

Light (the standard library and :mod:`sumito.defaults`): the command line shows these defaults in
``sumito zero --help`` and ``sumito nnue loop --help`` before it loads the learners.
"""

from __future__ import annotations

from dataclasses import dataclass

from sumito.defaults import C_PUCT, C_SCALE, C_VISIT, CONSIDERED, DIRICHLET_ALPHA, DIRICHLET_FRAC


@dataclass(frozen=True)
class LoopSettings:
    """What a run keeps the same from attempt to attempt (recorded in state.json; a resumed run must
    be given the same, or none)."""

    games: int = 200  # self-play games an attempt
    depth: int = 3  # the search's fixed depth, in self-play and in the gate
    window: int = 4  # attempts whose data a candidate trains on
    hidden: int = 32
    hidden2: int = 16
    epochs: int = 10
    lam: float = 0.5  # mix: the search score's weight against the result; tdleaf: TD(λ)'s λ
    targets: str = "mix"  # what a candidate is fitted to (sumito.defaults.NNUE_TARGETS)
    lr: float = 1e-3
    gate_games: int = 200  # at most, an attempt's gate (0: no gate, every candidate accepted)
    elo0: float = 0.0
    elo1: float = 50.0
    random_plies: int = 6
    max_plies: int = 300
    chunk: int = 10
    seed: int = 1
    side: int = 5  # the board: the standard one


@dataclass(frozen=True)
class ZeroSettings:
    """A run's settings: every one is written to config.json, and a resume must give the same. The defaults
    are ours (docs/zero.md says why)."""

    layout: str = "mini"
    inline_only: bool = False
    h1: int = 256
    h2: int = 128
    mode: str = "puct"  # docs/zero.md: PUCT learned faster than the Gumbel root on the mini board
    sims: int = 32
    considered: int = CONSIDERED
    c_visit: float = C_VISIT
    c_scale: float = C_SCALE
    c_puct: float = C_PUCT
    dirichlet_alpha: float = DIRICHLET_ALPHA
    dirichlet_frac: float = DIRICHLET_FRAC
    sample_plies: int = 10
    games: int = 200  # self-play games an iteration
    chunk: int = 25  # games a work item
    steps: int = 100  # Adam steps an iteration
    batch: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    value_mix: float = 0.5  # the value target: (1 - mix) × the game's result + mix × the search's root value
    discount: float = 1.0  # a result n plies away counts discount ** n, in the targets and in the search
    lr_drop_at: int = 20_000  # from this many games on, the step size is lr × lr_drop (0: never)
    lr_drop: float = 0.1
    window: int = 100_000  # positions in the replay window
    random_starts: float = 0.5
    max_plies: int = 150
    seed: int = 1
