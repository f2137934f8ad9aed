"""The learning experiments of Abalearn (Campos & Langlois 2003) and Wiering (2010) on Abalone:
train networks, test them at chosen game counts, write a table and a plot.

    python experiments/learning_curves.py EXPERIMENT [--seeds 3] [--eval-games 24] [--workers 2]
                                          [--backend ray [--address ADDR]]

Experiments (``--list`` prints them):

- ``table2``: Abalearn Table 2, Method I (Abalearn 2) against Method I(a) (Abalearn 3);
- ``fig2``: Abalearn Figure 2, networks sampled along a Method I run against Net 10, Net 250
  and Net 2750 of the same run;
- ``fig3``: Abalearn Figure 3, training against `random`, against a minimax player, by self-play;
- ``fig4``: Abalearn Figure 4, self-play with κ ∈ {−1, −0.8, −0.3, 0};
- ``wiering-regimes``: Wiering's self-play / playing the expert / observing the expert, and
  learning from the expert network's evaluations;
- ``wiering-lambda``: Wiering's λ sweep {0, 0.2, 0.4, 0.6, 0.8, 1}, self-play (λ = 1 at a tenth of α, as his);
  ``wiering-lambda-gl`` the same with the traces decaying by γλ, as his TD(λ) defines them;
  ``wiering-lambda1-alpha`` λ = 1 alone at step sizes α ∈ {0.01, 0.02, 0.03, 0.05, 0.1}, under both
  traces (a run that diverges counts as forfeiting its tests from there);
- ``tdleaf``: ours, TD-Leaf(λ) (training through a 3-ply search) against TD(λ), both tested as
  ``engine:net=…,depth=3``.

Each (arm, seed) is one training run (TD(λ), α = 0.1, γ = 0.9, λ = 0.7, ε from 0.9 decaying by
0.99 a game to a floor of 0.05, traces decaying by λ as in the paper's eq. 5, training games tied at
200 plies or 20 repetitions, and the reading the reading search chose: Abalearn 2's board split into
rings 0-2 | 3 | 4, a linear output, ±1 a marble, moves chosen by reward + γ·value, 10 hidden units;
Method II with the sigmoid output and ±0.1 a marble; unless the arm says otherwise). The reading
search's own stages, the older hypotheses and the TD-Leaf comparison keep the readings they ran
under (``OLD_READING``, ``stage2()``), so that their commands still give the
tables they documented. At each checkpoint its network plays each ``--opponent`` (default: the
experiment's, else the paper's benchmark ``heuristic`` at one ply, with seeded random tie-breaks) in
arena games from random 2-ply openings, colours alternating, stopped at 400 plies or when a position
comes back for the 20th time (the paper's footnote 4).

**The win column** (stage 3 of the reading search; the papers do not define "win rate"): games won
outright or stopped ahead on marbles, over all the test games of the cell's runs, with a 95%
interval (the wider of the profile-likelihood interval of the pooled games and Student's t over the
runs' own rates, so that run-to-run spread counts), and the interquartile mean of the runs with its
bootstrap band. Won outright and drawn are extra columns; the experiments run before stage 3 report
won outright as their bold column.

The scale defaults are the papers': 10 runs per arm and 100 test games per run and checkpoint
(Table 2's 100 games a cell per run; Figure 4's 10 agents); Figure 2 over 10 runs, 100 games a
pairing and run. Independent runs go through the arena's executor (``--workers`` processes, or
Ray tasks with ``--backend ray``, on a local Ray instance or the cluster at ``--address``; on a
cluster, ``--out`` is an absolute path on storage every node sees); each
run saves its trainer and rows after every checkpoint (atomically), so a killed experiment
resumes at the last checkpoint of each run when started again. A run whose weights diverge (not finite,
or past the bound a network file may hold) does not stop the experiment: its tests from the checkpoint
where that was found count as forfeits (lost, no marble for six against), and the summary names it.
The summary table (Markdown) goes to standard output, the plot to ``--plot`` (default
``docs/img/EXPERIMENT.png``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sumito.arena.executor import Executor, InlineExecutor, check_shared_folder, executor_from_args
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule, summarize_pair
from sumito.arena.ratings import score_interval
from sumito.cliargs import add_backend_args
from sumito.defaults import METHOD_PRESETS
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_rows, refuse_changed
from sumito.fileio import read_rows as read_csv_rows
from sumito.games.abalone import DrawRules
from sumito.learn.abalone_game import make_trainer
from sumito.learn.bands import Estimate, interval_estimate, widened
from sumito.learn.plot import draw_band, save_figure
from sumito.learn.run import load_checkpoint, save_checkpoint
from sumito.learn.runfolder import RunFolder
from sumito.learn.training import TrainingConfig
from sumito.models.network import network_path
from sumito.stopping import run_main

# test games: a tie when the same position comes back 20 times (the paper's footnote 4), or at 400 plies
EVAL_RULES = DrawRules(max_plies=400, repetitions=20)
ROW_FIELDS = ("arm", "seed", "games", "opponent", "eval_games", "wins", "draws", "losses",
              "m_wins", "m_draws", "m_losses", "marbles_won", "marbles_lost", "train_seconds", "player", "diverged")


@dataclass(frozen=True)
class Arm:
    """One line of a figure: a training configuration (overrides of the experiment's base)."""

    label: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    title: str
    arms: tuple[Arm, ...]
    checkpoints: tuple[int, ...]
    base: dict[str, Any] = field(default_factory=dict)
    paper: dict[str, tuple[float, ...]] = field(default_factory=dict)  # the paper's figures, per arm
    seeds: int = 10  # default number of runs per arm (the paper's Figure 4: 10 agents)
    eval_games: int = 100  # default test games per run and checkpoint
    opponents: tuple[str, ...] = ()  # default test opponents (none given: DEFAULT_OPPONENTS)
    player: str = "td:net={net}"  # how a network is tested (a player spec; {net}: its file)
    marbles: bool = False  # also a table and plot of stones won and lost a game (the paper's Figure 5 axes)
    players: tuple[str, ...] = ()  # several ways to test it (each a reading of the test): then every one
    # the win column (stage 3 of the reading search: won outright or stopped ahead on marbles); the experiments
    # run before it keep the outright column they were reported in
    column: str = "m_wins"

    def test_players(self) -> tuple[str, ...]:
        return self.players or (self.player,)


# the reading before the reading search: the paper's sigmoid output, moves chosen by value alone,
# 40 hidden units (ours). The search's stages and the older hypotheses keep it, so that their commands give
# the rows committed and the tables in docs/reproductions.md; the paper's experiments run under the default
OLD_READING = dict(output="sigmoid", choice="value", hidden=40)
M1 = dict(METHOD_PRESETS["method-I"])
M1A = dict(METHOD_PRESETS["method-Ia"])
M2 = dict(METHOD_PRESETS["method-II"])
SELF0 = dict(regime="self", kappa=0.0)  # Abalearn 3 (the default encoding), self-play, risk-neutral
LAMBDA1_ALPHAS = (0.01, 0.02, 0.03, 0.05, 0.1)  # the step sizes λ = 1 is tried at, a tenth of α to the full


def stage2(preset: dict[str, Any]) -> dict[str, Any]:
    """A preset under the choices stage 3 searched, as they were before it: Abalearn 2's split into rings
    0-1 | 2-3 | 4, no floor under ε, and Method II's output and reward scale those of the base or the
    default. The experiments run before stage 3 keep them, so that their commands still give the rows
    committed and the tables documented."""
    kept = {k: v for k, v in preset.items() if k not in ("output", "reward_scale")}  # Method II's, from stage 3
    return dict(kept, encoding=preset.get("encoding", "abalearn3").removesuffix("-c012"), epsilon_min=0.0)


M1_S2, M1A_S2, M2_S2, SELF0_S2 = stage2(M1), stage2(M1A), stage2(M2), stage2(SELF0)
KAPPAS = (-1.0, -0.8, -0.3, 0.0)

# the review's best point (Method I(a), a marble worth 0.1, the reward added when choosing) and the levels
# that stage 1 of the reading search tries, one factor at a time
SCREEN_BASE = {**M1A_S2, **OLD_READING, "reward_scale": 0.1, "choice": "reward"}
SCREEN_LEVELS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("base", {}),
    ("Method I", dict(encoding="abalearn2")),
    ("reward scale 1", dict(reward_scale=1.0)),
    ("reward scale 0.03", dict(reward_scale=0.03)),
    ("choice=value", dict(choice="value")),
    ("linear output", dict(output="linear")),
    ("tanh output", dict(output="tanh")),
    ("no epsilon", dict(epsilon=0.0)),
    ("epsilon floor 0.05", dict(epsilon_min=0.05)),
    ("training cap 1000 plies", dict(max_plies=1000)),
    ("10 hidden units", dict(hidden=10)),
)
# stage 2 of the reading search: every combination of the levels of the factors that stage 1 found to
# matter (the rule in docs/reproductions.md), for both of Table 2's methods
# (stage 1 found: output, reward scale, choice and hidden units matter; ε and the training cap do not)
GRID_FACTORS: tuple[tuple[tuple[str, dict[str, Any]], ...], ...] = (
    (("tanh output", dict(output="tanh")), ("linear output", dict(output="linear")), ("sigmoid", {})),
    (("scale 0.1", {}), ("scale 0.03", dict(reward_scale=0.03)), ("scale 1", dict(reward_scale=1.0))),
    (("choice=reward", {}), ("choice=value", dict(choice="value"))),
    (("40 hidden", {}), ("10 hidden", dict(hidden=10))),
)
TABLE2 = {"Method I": (0.48, 0.52, 0.54, 0.71), "Method I(a)": (0.68, 0.72, 0.76, 0.79)}

# stage 3 of the reading search (docs/reproductions.md, written down before it ran): the choices
# stages 1 and 2 held fixed, under the stage-2 default (TrainingConfig's defaults). Training factors: Abalearn
# 2's split of the board (the encoding's suffix, for Abalearn 2 and 3 alike) and exploration; test factors,
# played by every network: the td player's tie-break and which column counts as a win
STAGE3_SPLITS = (("rings 0-1|2-3|4", ""), ("rings 0-2|3|4", "-c012"), ("rings 0-1|2|3-4", "-b34"))
STAGE3_EXPLORATION: tuple[tuple[str, dict[str, Any]], ...] = (
    ("epsilon by game", {}),
    ("epsilon floor 0.05", dict(epsilon_min=0.05)),
    ("epsilon again at self-play", dict(epsilon_schedule="self-play")),
)
# (the two with take_wins=yes: the amendment made before any result was read, docs/reproductions.md)
STAGE3_PLAYERS = ("td:net={net}", "td:net={net},ties=random", "td:net={net},take_wins=yes",
                  "td:net={net},ties=random,take_wins=yes")
# the benchmark: one ply, a pushed-off marble at distance 12. With off=0 the heuristic never takes a marble
# (stage 2: 0 marbles lost in every cell), which contradicts the paper's section 6.2 (the kappa = 0 agent
# "losing most games against the heuristic player"): that reading is inadmissible
STAGE3_BENCHMARK = "heuristic:depth=1,ties=random"
COLUMNS = {"outright": "wins", "ahead on marbles": "m_wins"}
COLUMN_NAMES = {"wins": "won outright", "m_wins": "won or ahead on marbles"}


def stage3_arms() -> tuple[Arm, ...]:
    """``METHOD | split, exploration`` for Methods I and I(a)."""
    return tuple(
        Arm(f"{method} | {split}, {explore}", dict(preset, encoding=preset["encoding"] + suffix, **options))
        for split, suffix in STAGE3_SPLITS
        for explore, options in STAGE3_EXPLORATION
        for method, preset in (("Method I", M1_S2), ("Method I(a)", M1A_S2))
    )


def grid_arms() -> tuple[Arm, ...]:
    """One arm a method and combination of levels, labelled ``METHOD | level, level, ...``."""
    combos: list[tuple[str, dict[str, Any]]] = [("", {})]
    for levels in GRID_FACTORS:
        combos = [(f"{label}, {name}" if label else name, {**options, **more})
                  for label, options in combos for name, more in levels]
    return tuple(Arm(f"{method} | {label or 'base'}", dict(SCREEN_BASE, **preset, **options))
                 for label, options in combos for method, preset in (("Method I", M1_S2), ("Method I(a)", M1A_S2)))


# the benchmark under each reading: one or two plies, a pushed-off marble at distance 12 (ours) or 0
BENCHMARKS = tuple(f"heuristic:depth={d},ties=random{off}" for d in (1, 2) for off in ("", ",off=0"))

EXPERIMENTS: dict[str, Experiment] = {
    "table2": Experiment(
        "Abalearn Table 2: Method I vs Method I(a), win rate against the heuristic player",
        (Arm("Method I", M1), Arm("Method I(a)", M1A)),
        (500, 1000, 2000, 3000),
        paper={"Method I": (0.48, 0.52, 0.54, 0.71), "Method I(a)": (0.68, 0.72, 0.76, 0.79)},
    ),
    # the paper's footnote 2 (the result as the only reward), under the default reading
    "table2-end": Experiment(
        "Abalearn Table 2 with the result as the only reward (the paper's footnote 2)",
        (Arm("Method I", dict(M1, rewards="end")), Arm("Method I(a)", dict(M1A, rewards="end"))),
        (500, 1000, 2000, 3000),
        paper={"Method I": (0.48, 0.52, 0.54, 0.71), "Method I(a)": (0.68, 0.72, 0.76, 0.79)},
    ),
    "fig3": Experiment(
        "Abalearn Figure 3: training against random, a minimax player, or itself",
        (
            Arm("against random", dict(SELF0, regime="opponent", opponent="random")),
            Arm("against heuristic", dict(SELF0, regime="opponent", opponent="heuristic:ties=random")),
            Arm("self-play", SELF0),
        ),
        (500, 1000, 2000),
        marbles=True,  # Figure 3's axis is unknown: win rate and stones, both
    ),
    "fig4": Experiment(
        "Abalearn Figure 4: risk-sensitive self-play (Method II) for several kappa",
        tuple(Arm(f"kappa={k:g}", dict(M2, kappa=k)) for k in KAPPAS),
        (500, 1000, 2000),
    ),
    "fig5": Experiment(
        "Abalearn Figure 5: the risk-seeking self-play agent (kappa = -1) to 10,000 games",
        (Arm("kappa=-1", M2),),
        # the other version of the paper keeps the figure's axes: stones won and lost a game against the
        # heuristic player, training games on a log axis from 10 (to 2,000; the text: "after 10000 games")
        (10, 100, 1000, 2000, 10000),
        seeds=10,  # the paper's scale: 10 runs x 100 test games a point
        marbles=True,
    ),
    # stage 3 of the reading search, Method II (docs/reproductions.md, written down before it ran): the output
    # and the reward scale for each kappa of Figure 4, under stage 3's default for everything else
    "readings-method2": Experiment(
        "The reading search, stage 3, Method II: output and reward scale for each kappa of Figure 4",
        tuple(
            Arm(f"kappa={k:g} | {out} output, scale {scale:g}", dict(M2, kappa=k, output=out, reward_scale=scale))
            for out in ("linear", "sigmoid", "tanh")
            for scale in (1.0, 0.1)
            for k in KAPPAS
        ),
        (500, 1000, 2000),
        seeds=4,
        opponents=(STAGE3_BENCHMARK,),
    ),
    # Readings of the paper that could make risk-seeking self-play (Method II) learn; each arm
    # changes one thing from the default reading (docs/reproductions.md reports them)
    "kappa-readings": Experiment(
        "Method II (kappa = -1 and 0) under other readings of the paper",
        tuple(
            Arm(f"{label}, kappa={k:g}", dict(M2_S2, kappa=k, **options))
            for label, options in (
                ("reward added to the value", dict(choice="reward")),
                ("push reward credited to its afterstate", dict(credit="afterstate")),
                ("gamma-lambda traces", dict(trace_decay="gamma-lambda")),
                ("linear output", dict(output="linear")),
                ("rewards scaled by 0.1", dict(reward_scale=0.1)),
                ("result-only rewards", dict(rewards="end")),
                ("one colour's view, the other minimising", dict(view="black")),
            )
            for k in (-1.0, 0.0)
        ),
        (1000, 2000),
        seeds=2,
        opponents=("heuristic:depth=1,ties=random",),
        base=OLD_READING,
        column="wins",
    ),
    "method-readings": Experiment(
        "Method I and I(a) under other readings of the paper",
        tuple(
            Arm(f"{name}, {label}", dict(preset, **options))
            for label, options in (
                ("reward added to the value", dict(choice="reward")),
                ("push reward credited to its afterstate", dict(credit="afterstate")),
                ("push reward credited to its afterstate, linear output", dict(credit="afterstate", output="linear")),
                ("result-only rewards", dict(rewards="end")),
            )
            for name, preset in (("Method I", M1_S2), ("Method I(a)", M1A_S2))
        ),
        (1000, 3000),
        seeds=2,
        opponents=("heuristic:depth=1,ties=random",),
        base=OLD_READING,
        column="wins",
    ),
    # The reading search (docs/reproductions.md, "The reading search"), written down before it
    # was run. Stage 1 screens one factor at a time from the review's best point; every network is tested
    # against the benchmark under both its readings (depth 1 and 2, a pushed-off marble at distance 12 or 0)
    "readings-screen": Experiment(
        "The reading search, stage 1: one factor at a time from Method I(a), reward scale 0.1, choice=reward",
        tuple(Arm(label, dict(SCREEN_BASE, **options)) for label, options in SCREEN_LEVELS),
        (500, 3000),
        seeds=4,
        opponents=BENCHMARKS,
        paper={label: (0.68, 0.79) for label, _ in SCREEN_LEVELS} | {"Method I": (0.48, 0.71)},
        column="wins",
    ),
    "readings-grid": Experiment(
        "The reading search, stage 2: Methods I and I(a) under every combination of the factors that mattered",
        grid_arms(),
        (500, 1000, 2000, 3000),
        seeds=4,
        # the one-ply benchmark first (both readings of `off`); the two-ply one after (docs/reproductions.md)
        opponents=BENCHMARKS[:2],
        paper={arm.label: TABLE2[arm.label.split(" | ")[0]] for arm in grid_arms()},
        column="wins",
    ),
    "readings-stage3": Experiment(
        "The reading search, stage 3: the board's split, exploration, the test's tie-break and the win column",
        stage3_arms(),
        (500, 1000, 2000, 3000),
        seeds=4,
        opponents=(STAGE3_BENCHMARK,),
        players=STAGE3_PLAYERS,
        paper={arm.label: TABLE2[arm.label.split(" | ")[0]] for arm in stage3_arms()},
        column="wins",
    ),
    # H3 of the turn to draws after 2,000 games (docs/reproductions.md, written down before it ran): Method I(a)
    # under the default with a risk-seeking kappa, against the default's kappa = 0 (table2's Method I(a) rows:
    # the same preset and seeds)
    "draw-turn-kappa": Experiment(
        "The turn to draws, H3: Method I(a) with kappa < 0",
        tuple(Arm(f"Method I(a), kappa={k:g}", dict(M1A, kappa=k)) for k in (-1.0, -0.8)),
        (500, 1000, 2000, 3000),
    ),
    "wiering-regimes": Experiment(
        "Wiering's regimes on Abalone: where the training games come from",
        (
            Arm("self-play", SELF0),
            Arm("playing the expert", dict(SELF0, regime="opponent", opponent="abla:depth=2,ties=random")),
            Arm("observing the expert", dict(SELF0, regime="observe", opponent="abla:depth=2,ties=random")),
            # a network expert (the shipped one) can also give its evaluations as the TD targets
            Arm("observing td", dict(SELF0, regime="observe", opponent="td")),
            Arm("observing td, its evaluations as targets",
                dict(SELF0, regime="observe", opponent="td", targets=str(network_path("builtin")))),
        ),
        (250, 500, 1000, 2000),
        base=dict(opening_plies=4),  # under the default
    ),
    "wiering-lambda": Experiment(
        "Wiering's lambda sweep on Abalone (self-play)",
        # λ = 1 with a tenth of the step size, as Wiering does ("otherwise initially the weights became much too
        # large"): at α = 0.1 the undecayed traces of a game of up to 200 plies drive the weights past any
        # float (W1 not finite within 250 games, seed 2003)
        (*(Arm(f"lambda={lam:g}", dict(SELF0, lam=lam)) for lam in (0.0, 0.2, 0.4, 0.6, 0.8)),
         Arm("lambda=1, alpha=0.01", dict(SELF0, lam=1.0, alpha=0.01))),
        (250, 500, 1000, 2000),
        base=dict(opening_plies=4),  # under the default, as wiering-regimes
    ),
    # Wiering's own TD(λ) decays the traces by γλ (his e_t = γλ e_{t-1} + η_t) with γ = 1, where it is the same as
    # Abalearn's eq. 5 (by λ); on Abalone, with Abalearn's γ = 0.9, the two differ: the sweep under his traces
    "wiering-lambda-gl": Experiment(
        "Wiering's lambda sweep on Abalone (self-play), traces decaying by gamma*lambda as his",
        tuple(Arm(f"lambda={lam:g}, traces by gamma*lambda", dict(SELF0, lam=lam, trace_decay="gamma-lambda"))
              for lam in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
        (250, 500, 1000, 2000),
        base=dict(opening_plies=4),
    ),
    # λ = 1 failed under both traces (by λ at a tenth of α, by γλ at the full α); Wiering's tenth of α is his
    # backgammon's choice, not a searched one: the step sizes between it and the full α, each run that diverges
    # recorded as forfeits (_forfeit_rows)
    "wiering-lambda1-alpha": Experiment(
        "Wiering's lambda = 1 on Abalone (self-play): step sizes 0.01-0.1, both traces",
        (*(Arm(f"lambda=1, alpha={alpha:g}", dict(SELF0, lam=1.0, alpha=alpha)) for alpha in LAMBDA1_ALPHAS),
         # his own reading whole: his traces (by γλ) and his tenth of α for λ = 1
         *(Arm(f"lambda=1, alpha={alpha:g}, traces by gamma*lambda",
               dict(SELF0, lam=1.0, alpha=alpha, trace_decay="gamma-lambda")) for alpha in LAMBDA1_ALPHAS)),
        (250, 500, 1000, 2000),
        base=dict(opening_plies=4),
    ),
    "tdleaf": Experiment(
        "TD-Leaf(lambda) against TD(lambda): self-play, kappa = 0, tested in a 3-ply search",
        (Arm("TD(lambda), 1-ply training", SELF0_S2),
         Arm("TD-Leaf(lambda), 3-ply training", dict(SELF0_S2, search_depth=3))),
        (100, 250, 500),
        eval_games=50,
        player="engine:net={net},depth=3",
        base=OLD_READING,
        opponents=BENCHMARKS[::2],  # at 1 and 2 plies, as run before the reading search
        column="wins",
    ),
}
# the paper's heuristic player at one ply (it gives no depth; stage 2 of the reading search left the two-ply
# reading out, docs/reproductions.md)
DEFAULT_OPPONENTS = (STAGE3_BENCHMARK,)
FIG2_SAMPLES = (10, 100, 250, 500, 1000, 1500, 2000, 2750)
FIG2_REFERENCES = (10, 250, 2750)
# both networks of a Figure 2 pairing break ties at random (seeded by the arena, game by game), and the games
# start from random 2-ply openings: two deterministic one-ply players would replay one game, usually a cycle
FIG2_PLAYER = "td:net={net},ties=random"


# ----------------------------------------------------------------------------- one training run
def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-=." else "_" for c in text)


def evaluate(net: Path, opponent: str, games: int, seed: int, player: str = "td:net={net}") -> dict[str, int]:
    """The network's plain and on-marbles results against ``opponent`` (arena games, in this process)."""
    settings = ArenaSettings.from_layout("standard", seed=seed, rules=EVAL_RULES)
    tasks = schedule([player.format(net=net), opponent], games, settings)
    results = [r for _, r in InlineExecutor().run(play_game, tasks)]
    plain, marbles = summarize_pair(results), summarize_pair(results, adjudicate=True)
    return dict(eval_games=plain.games, wins=plain.wins, draws=plain.draws, losses=plain.losses,
                m_wins=marbles.wins, m_draws=marbles.draws, m_losses=marbles.losses,
                marbles_won=plain.marbles_won, marbles_lost=plain.marbles_lost)


def run_arm(
    job: tuple[str, Arm, int, dict[str, Any], Sequence[int], Path, tuple[str, ...], int, tuple[str, ...]],
) -> list[dict[str, Any]]:
    """Train one (arm, seed) to each checkpoint and test it there, as each of the test ``players`` against
    each opponent. After each checkpoint the trainer and the rows so far are saved (atomically), so that a
    killed run resumes there."""
    name, arm, seed, base, checkpoints, folder, opponents, eval_games, players = job
    players = (players,) if isinstance(players, str) else tuple(players)
    config = TrainingConfig(**{**base, **arm.options, "seed": seed})
    _check_config(folder, config)
    done = folder / "rows.csv"
    if done.exists():
        if all((folder / f"net-{g}.npz").exists() for g in checkpoints):
            return _test_saved(name, arm, seed, folder, checkpoints, opponents, eval_games, players)
        met = {(int(r["games"]), r["opponent"], r["player"] or players[0]) for r in read_rows(done)}
        if all((g, o, p) in met for g in checkpoints for o in opponents for p in players):
            return read_rows(done)
        # new opponents and no saved networks (e.g. rows committed from another machine): train the run again
        # (the same seed gives the same networks and the same games)
        done.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    RunFolder(folder, ()).write_config(_comparable(config))
    trainer = make_trainer(config)
    partial, state = folder / "rows-partial.csv", folder / "trainer.npz"
    rows: list[dict[str, Any]] = []
    if partial.exists() and state.exists():
        rows = read_rows(partial)
        trainer.load_state_dict(load_checkpoint(state)["state"])
    seconds = float(rows[-1]["train_seconds"]) if rows else 0.0
    for target in checkpoints:
        if target <= trainer.games and any(int(r["games"]) == target for r in rows):
            continue
        seconds += trainer.train_until(target)
        problem = trainer.network.divergence()
        if problem:
            rows += _forfeit_rows(name, arm, seed, [g for g in checkpoints if g >= target], f"{seconds:.1f}",
                                  players, opponents, eval_games)
            print(f"{name}: {arm.label}, seed {seed} diverged by {target} games ({problem}); its tests from "
                  f"there count as forfeits", flush=True)
            break
        net = folder / f"net-{target}.npz"
        trainer.network.save(net)
        for player in players:
            for opponent in opponents:
                rows.append(_test_row(name, arm, seed, target, f"{seconds:.1f}", net, player, opponent, eval_games))
        save_checkpoint(state, trainer)
        write_rows(partial, rows)
    write_rows(done, rows)
    state.unlink(missing_ok=True)
    partial.unlink(missing_ok=True)
    return read_rows(done)  # as text, like a finished run's


def _forfeit_rows(name: str, arm: Arm, seed: int, targets: Sequence[int], seconds: str, players: Sequence[str],
                  opponents: Sequence[str], eval_games: int) -> list[dict[str, Any]]:
    """The rows of a run whose weights diverged (not finite, or past the bound a network file may hold) by
    the first of ``targets``: it cannot be saved or played, so each of its tests from there is a forfeit,
    the harshest count there is (lost outright, no marble for six against), and ``diverged`` names the
    checkpoint where it was found. Recorded so that the arm's band counts the run instead of the experiment
    stopping, and never kinder than a played test."""
    return [dict(arm=arm.label, seed=seed, games=target, opponent=opponent, train_seconds=seconds, player=player,
                 eval_games=eval_games, wins=0, draws=0, losses=eval_games, m_wins=0, m_draws=0,
                 m_losses=eval_games, marbles_won=0, marbles_lost=6 * eval_games, diverged=targets[0])
            for target in targets for player in players for opponent in opponents]


def _comparable(config: TrainingConfig) -> dict[str, Any]:
    """A run's configuration as it is kept in its folder (an expert network as its file name only, so that a
    folder copied to another machine still matches)."""
    fields = asdict(config)
    if fields["targets"] != "own":
        fields["targets"] = Path(fields["targets"]).name
    return fields


def _check_config(folder: Path, config: TrainingConfig) -> None:
    """Refuse a run folder trained under another configuration (e.g. before a default changed): its rows
    would be reported as this arm's. Folders without ``config.json`` (rows committed alone) are taken as
    they are; an option added since a folder was made counts as its default there (the same training)."""
    kept = RunFolder(folder, ())
    if kept.config_file.exists():
        new = _comparable(config)
        refuse_changed(folder, {**_comparable(TrainingConfig()), **kept.saved_config()}, new,
                       flags={k: f"the arm's {k}" for k in new},
                       advice="its rows would be counted as this arm's: remove the folder or use another --out")


def _test_saved(name: str, arm: Arm, seed: int, folder: Path, checkpoints: Sequence[int], opponents: Sequence[str],
                eval_games: int, players: Sequence[str]) -> list[dict[str, Any]]:
    """A finished run's rows, with the tests it has not played yet (an opponent, or a way of testing it)
    played by its saved networks (``net-G.npz``) and added, one at a time (atomically, so a kill loses one).
    A row without a player was played by the first of ``players``."""
    done = folder / "rows.csv"
    rows = read_rows(done)
    for target in checkpoints:
        met = {(r["opponent"], r["player"] or players[0]) for r in rows if int(r["games"]) == target}
        for player in players:
            for opponent in opponents:
                if (opponent, player) in met:
                    continue
                seconds = next(r["train_seconds"] for r in rows if int(r["games"]) == target)
                rows.append(_test_row(name, arm, seed, target, seconds, folder / f"net-{target}.npz", player,
                                      opponent, eval_games))
                write_rows(done, rows)
    return read_rows(done)


def _test_row(name: str, arm: Arm, seed: int, target: int, seconds: str, net: Path, player: str, opponent: str,
              eval_games: int) -> dict[str, Any]:
    """The network of ``target`` games tested as ``player`` against ``opponent``: its row, and a progress line."""
    result = evaluate(net, opponent, eval_games, derive_seed(seed, target), player)
    shown = "" if player == "td:net={net}" else f"as {shown_player(player)} "
    print(f"{name}: {arm.label}, seed {seed}, {target} games, {shown}against {opponent}: won {result['wins']} of "
          f"{eval_games} outright, {result['draws']} drawn", flush=True)
    return dict(arm=arm.label, seed=seed, games=target, opponent=opponent, train_seconds=seconds, player=player,
                **result)


def shown_player(player: str) -> str:
    """A test player's spec as tables show it (``NET`` for the network; a row without one: the plain ``td``)."""
    return (player or "td:net={net}").replace("{net}", "NET")


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    atomic_write_rows(path, ROW_FIELDS, rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """A run's rows; rows written before tests had several players have ``player`` empty."""
    return [{**row, "player": row.get("player") or ""} for row in read_csv_rows(path)]


# ----------------------------------------------------------------------------- figure 2
def run_fig2(args: argparse.Namespace) -> None:
    """Method I runs (``--seeds``, default 10, from ``--seed``) sampled at FIG2_SAMPLES; in each run, each
    sample plays Net 10, Net 250 and Net 2750 of the same run. One folder a run (``fig2/s<seed>``), its rows
    written when its games are played, so that a killed experiment resumes at the runs not yet finished."""
    floor = args.epsilon_min
    name = "fig2" if floor is None else f"fig2-eps{floor:g}"
    label = "Method I" if floor is None else f"Method I, eps >= {floor:g}"
    config = dict(M1) if floor is None else dict(M1, epsilon_min=floor)
    seeds = [args.seed + k for k in range(args.seeds or 10)]
    folders = [Path(args.out) / name / f"s{seed}" for seed in seeds]
    if args.report_only:
        done = [f / "rows.csv" for f in folders if (f / "rows.csv").exists()]
        rows = [row for path in done for row in read_rows(path)]
    else:
        rows = [row for rows in _map(_fig2_run, [(f, s, config, args.eval_games) for f, s in zip(folders, seeds)],
                                     args.executor) for row in rows]
    if not rows:
        raise SumitoError(f"no finished run of {name} in {Path(args.out) / name}")
    # a line for each reference network: "against Net 250" (of the tested network's own run)
    rows = [dict(r, arm=f"against {r['opponent']}", opponent="its run's reference network") for r in rows]
    summarize(name, rows, None, args, x_label="training games of the tested network",
              title=f"Abalearn Figure 2: sampled networks against Net 10, Net 250 and Net 2750 ({label})",
              against="the column's network")


def _fig2_run(job: tuple[Path, int, dict[str, Any], int]) -> list[dict[str, Any]]:
    """One Figure 2 run: train it (its networks kept at FIG2_SAMPLES), then play each pairing."""
    folder, seed, config, eval_games = job
    if (folder / "rows.csv").exists():
        return read_rows(folder / "rows.csv")
    folder.mkdir(parents=True, exist_ok=True)
    if not all((folder / f"net-{g}.npz").exists() for g in FIG2_SAMPLES):
        trainer = make_trainer(TrainingConfig(**config, seed=seed))
        for target in FIG2_SAMPLES:
            while trainer.games < target:
                trainer.play_game()
            trainer.network.save(folder / f"net-{target}.npz")
    pairs = [(g, r) for r in FIG2_REFERENCES for g in FIG2_SAMPLES if g != r]
    rows = [dict(arm=f"Net {r}", seed=seed, games=g, opponent=f"Net {r}", train_seconds="",
                 **evaluate(folder / f"net-{g}.npz", FIG2_PLAYER.format(net=folder / f"net-{r}.npz"), eval_games,
                            derive_seed(seed, g, r), player=FIG2_PLAYER))
            for g, r in pairs]
    write_rows(folder / "rows.csv", rows)
    return read_rows(folder / "rows.csv")  # as text, like a finished run's


def _map(fn, jobs: list, executor: Executor) -> list:
    """``fn`` over ``jobs`` through the arena's executor (``--workers`` processes, or Ray tasks with
    ``--backend ray``; Ctrl-C stops them all). ``fn`` is a module-level function of this script: run as
    ``__main__``, it goes to Ray's workers by value (cloudpickle), so they need not import the script."""
    results: list[Any] = [None] * len(jobs)
    with contextlib.closing(executor.run(fn, jobs)) as stream:
        for done, (i, result) in enumerate(stream, start=1):
            results[i] = result
            print(f"{done}/{len(jobs)} done", file=sys.stderr, flush=True)
    return results


# ----------------------------------------------------------------------------- summary
def run_band(group: list[dict[str, Any]], field_name: str = "wins") -> Estimate:
    """The interquartile mean over the runs of their own ``field_name`` a test game (outright wins by
    default: the win rate; ``marbles_won``: stones won a game), with its bootstrap 95% band."""
    return interval_estimate(np.array([int(r[field_name]) / int(r["eval_games"]) for r in group]), "iqm")


def win_rate(group: list[dict[str, Any]], column: str = "wins") -> tuple[float, float, float]:
    """The win rate over the group's games in ``column`` (outright wins by default; ``m_wins``: won or
    stopped ahead on marbles) and its 95% interval: the wider of the profile-likelihood interval of the
    pooled games and Student's t over the runs' rates."""
    wins = sum(int(r[column]) for r in group)
    games = sum(int(r["eval_games"]) for r in group)
    rate, low, high = score_interval(wins, 0, games - wins)
    low, high = widened(low, high, [int(r[column]) / int(r["eval_games"]) for r in group])
    return rate, max(low, 0.0), min(high, 1.0)


def summarize(name: str, rows: list[dict[str, Any]], experiment: Experiment | None, args: argparse.Namespace,
              x_label: str = "training games", title: str | None = None, against: str | None = None,
              column: str | None = None) -> None:
    """Print the table (the win rate in the experiment's column over all runs' games, with its 95% interval,
    the other column beside it) and plot it."""
    column = column or (experiment.column if experiment else "m_wins")
    other = "wins" if column == "m_wins" else "m_wins"
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    arms: list[str] = []
    several = len({r["opponent"] for r in rows}) > 1
    players = len({r["player"] for r in rows}) > 1
    for r in rows:
        arm = f"{r['arm']} vs {r['opponent']}" if several else r["arm"]
        if players:
            arm += f" as {shown_player(r['player'])}"
        cells[(arm, int(r["games"]))].append(r)
        if arm not in arms:
            arms.append(arm)
    games = sorted({g for _, g in cells})
    title = title or (experiment.title if experiment else name)
    paper = experiment.paper if experiment else {}
    print(f"\n{title}\n")
    print(f"| arm | training games | runs × test games | {COLUMN_NAMES[column]} (95% interval) | IQM over the runs "
          f"(bootstrap 95%) | paper | {COLUMN_NAMES[other]} | drawn | marbles for:against |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arm, g, group in _cells_in_order(cells, arms, games):
        rate, low, high = win_rate(group, column)
        total = {k: sum(int(r[k]) for r in group) for k in ("eval_games", "draws", other, "marbles_won",
                                                            "marbles_lost")}
        n = total["eval_games"]
        published = ""
        paper_arm = group[0]["arm"]
        if paper_arm in paper and experiment and g in experiment.checkpoints:
            published = f"{paper[paper_arm][experiment.checkpoints.index(g)]:.0%}"
        cell = arm.replace("|", "\\|")  # a grid arm's label holds a bar: escaped in a Markdown table
        band = run_band(group, column)
        print(f"| {cell} | {g} | {len(group)} × {n // len(group)} | **{rate:.1%}** ({low:.1%}–{high:.1%}) | "
              f"{band.value:.1%} ({band.low:.1%}–{band.high:.1%}) | "
              f"{published} | {total[other] / n:.1%} | {total['draws'] / n:.0%} | "
              f"{total['marbles_won']}:{total['marbles_lost']} |")
    seeds = sorted({int(r["seed"]) for r in rows})
    opponents = ", ".join(dict.fromkeys(r["opponent"] for r in rows))
    print(f"\nThe win column (bold): {COLUMN_NAMES[column]}, over all the runs' test games, against "
          f"{against or opponents}; runs (seeds) {', '.join(map(str, seeds))}. Won outright: six marbles pushed "
          f"off; ahead on marbles: a game stopped at 400 plies or the 20th repetition counted for the side that "
          f"pushed off more. IQM: the interquartile mean of the runs' own win rates (the bold column) with its "
          f"percentile-bootstrap 95% band (rliable's method, sumito.learn.bands). Drawn: the games stopped "
          f"without a winner.")
    diverged = {(r["arm"], int(r["seed"])): int(r["diverged"]) for r in rows if r.get("diverged")}
    if diverged:
        print(f"\n{len(diverged)} of {len({(r['arm'], int(r['seed'])) for r in rows})} runs diverged (their weights "
              f"not finite or past the bound a network file may hold), each counted from the checkpoint where "
              f"it was found as forfeiting every test there and after (lost, 0 marbles to 6): "
              + "; ".join(f"{arm} seed {seed} by {g} games" for (arm, seed), g in sorted(diverged.items())) + ".")
    plots = not getattr(args, "no_plot", False)
    if plots:
        _plot(name, cells, arms, games, experiment, args, x_label, title, column)
    if experiment and experiment.marbles:
        marbles_table(cells, arms, games)
        if plots:
            _plot_marbles(name, cells, arms, games, args, x_label, title)


def _cells_in_order(cells: dict[tuple[str, int], list[dict[str, Any]]], arms: list[str], games: list[int]):
    """``(arm, games, rows)`` of every cell that has rows, arm by arm, checkpoint by checkpoint."""
    for arm in arms:
        for g in games:
            if cells.get((arm, g)):
                yield arm, g, cells[(arm, g)]


def marbles_table(cells: dict[tuple[str, int], list[dict[str, Any]]], arms: list[str], games: list[int]) -> None:
    """Stones won and lost a test game, each the IQM over the runs with its bootstrap 95% band."""
    print("\n| arm | training games | runs | stones won a game (IQM, 95% band) | stones lost a game | "
          "material advantage |")
    print("|---|---|---|---|---|---|")
    for arm, g, group in _cells_in_order(cells, arms, games):
        won, lost = run_band(group, "marbles_won"), run_band(group, "marbles_lost")
        diff = interval_estimate(np.array([(int(r["marbles_won"]) - int(r["marbles_lost"])) / int(r["eval_games"])
                                           for r in group]), "iqm")
        print(f"| {arm.replace('|', chr(92) + '|')} | {g} | {len(group)} | {won.value:.2f} ({won.low:.2f}–"
              f"{won.high:.2f}) | {lost.value:.2f} ({lost.low:.2f}–{lost.high:.2f}) | {diff.value:+.2f} "
              f"({diff.low:+.2f}–{diff.high:+.2f}) |")


def screen_table(rows: list[dict[str, Any]], base: str = "base") -> None:
    """Stage 1's rule (docs/reproductions.md): at the last checkpoint, against each benchmark reading, does
    an arm's outright win rate lie outside the base point's 95% interval, or the base's outside the arm's?"""
    last = max(int(r["games"]) for r in rows)
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if int(r["games"]) == last:
            cells[(r["arm"], r["opponent"])].append(r)
    opponents = list(dict.fromkeys(r["opponent"] for r in rows))
    arms = list(dict.fromkeys(r["arm"] for r in rows))
    print(f"\nAt {last} training games: won outright (95% interval); * = differs from the {base} point by the rule\n")
    print("| arm | " + " | ".join(opponents) + " | goes on |")
    print("|---|" + "---|" * (len(opponents) + 1))
    for arm in arms:
        texts, differs = [], False
        for opponent in opponents:
            rate, low, high = win_rate(cells[(arm, opponent)])
            b_rate, b_low, b_high = win_rate(cells[(base, opponent)])
            star = arm != base and (not b_low <= rate <= b_high or not low <= b_rate <= high)
            differs |= star
            texts.append(f"{rate:.1%} ({low:.1%}–{high:.1%}){' *' if star else ''}")
        print(f"| {arm} | " + " | ".join(texts) + f" | {'yes' if differs else 'no' if arm != base else '—'} |")


def _seed_rates(group: list[dict[str, Any]], checkpoints: Sequence[int]) -> np.ndarray:
    """Wins and games of each run (seed) at each checkpoint: an array (runs, checkpoints, 2)."""
    by_seed: dict[str, dict[int, tuple[int, int]]] = defaultdict(dict)
    for r in group:
        by_seed[r["seed"]][int(r["games"])] = (int(r["wins"]), int(r["eval_games"]))
    return np.array([[by_seed[s].get(g, (0, 0)) for g in checkpoints] for s in sorted(by_seed)], dtype=float)


def table2_distance(runs: dict[str, np.ndarray], rng: np.random.Generator | None = None,
                    resamples: int = 2000) -> tuple[float, float, float]:
    """The distance of a Table 2 from the paper's (sum over both methods and the checkpoints of the squared
    difference of the pooled outright win rates) and its 95% bootstrap interval, the runs of each method
    resampled with replacement. ``runs``: each method's (runs, checkpoints, 2) wins and games."""

    def distance(chosen: dict[str, np.ndarray]) -> float:
        total = 0.0
        for method, paper in TABLE2.items():
            wins, games = chosen[method].sum(axis=0).T
            total += float((((wins / games) - np.array(paper)) ** 2).sum())
        return total

    point = distance(runs)
    rng = rng or np.random.default_rng(2026)
    draws = [distance({m: a[rng.integers(0, len(a), len(a))] for m, a in runs.items()}) for _ in range(resamples)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return point, float(low), float(high)


class GridCell(NamedTuple):
    """One training reading with one benchmark reading, scored by stage 2's rule."""

    distance: float
    low: float  # the distance's 95% bootstrap interval
    high: float
    reading: str
    benchmark: str
    rates: list[str]  # each method's outright win rates, checkpoint by checkpoint, as text
    runs: int  # runs a method


def grid_distances(rows: list[dict[str, Any]], checkpoints: Sequence[int]) -> list[GridCell]:
    """Stage 2's rule: for each training reading with each benchmark reading, the distance of our Table 2
    (both methods, every checkpoint, won outright) from the paper's, with its 95% bootstrap interval over the
    runs, least first."""
    return _distances(rows, checkpoints, lambda r: r["opponent"], {"": "wins"})


def stage3_distances(rows: list[dict[str, Any]], checkpoints: Sequence[int]) -> list[GridCell]:
    """Stage 3's rule: for each training reading, test player and win column, the distance of our Table 2
    from the paper's with its 95% bootstrap interval, least first (``benchmark`` holds the test reading)."""
    return _distances(rows, checkpoints, lambda r: r["player"], COLUMNS)


def _distances(rows: list[dict[str, Any]], checkpoints: Sequence[int], test_of: Callable[[dict], str],
               columns: dict[str, str]) -> list[GridCell]:
    """Each (training reading, test reading, win column)'s distance from the paper's Table 2; a cell whose
    runs have not all finished has none yet."""
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        method, reading = r["arm"].split(" | ")
        cells[(reading, test_of(r), method)].append(r)
    scored = []
    for reading, test in dict.fromkeys((k[0], k[1]) for k in cells):
        for column, field_name in columns.items():
            runs = {m: _seed_rates([{**r, "wins": r[field_name]} for r in cells[(reading, test, m)]], checkpoints)
                    for m in TABLE2}
            if any(len(a) == 0 or (a[:, :, 1] == 0).any() for a in runs.values()):
                continue
            distance, low, high = table2_distance(runs)
            parts = [" → ".join(f"{w / n:.0%}" for w, n in runs[m].sum(axis=0)) for m in TABLE2]
            label = test
            if column:  # a stage-3 test reading: the player, then the column
                label = f"{test.replace('td:net={net}', 'td') or 'td'}, {column}"
            scored.append(GridCell(distance, low, high, reading, label, parts, min(len(a) for a in runs.values())))
    return sorted(scored)


class Method2Reading(NamedTuple):
    """One (output, reward scale) reading of Method II, judged by Figures 4 and 5's claims (stage 3)."""

    reading: str
    rates: dict[float, tuple[float, float, float]]  # each kappa's win rate (the win column) and 95% interval
    lost_at_zero: tuple[float, float, float]  # kappa = 0's lost rate (the same column) and its interval
    claim1: bool  # kappa = -1 and -0.8 each above -0.3 and 0, the intervals apart
    claim1_half: bool  # kappa = -0.8 alone above -0.3 and 0, the intervals apart
    claim2: bool  # kappa = 0 loses most games: its lost rate's interval above 50%
    order_distance: float  # the squared shortfalls of -1 and -0.8 below -0.3 and 0 (the rule's tie-break)


def method2_readings(rows: list[dict[str, Any]], column: str = "m_wins") -> list[Method2Reading]:
    """Stage 3's rule for Method II (docs/reproductions.md): at the last checkpoint, each reading's claims
    1 and 2 by the verdict rules (a level claim holds when its interval lies on its side; a direction holds
    when the arms' intervals are apart); the readings holding the most claims first, then the least order
    distance."""
    lost = {"m_wins": "m_losses", "wins": "losses"}[column]
    last = max(int(r["games"]) for r in rows)
    cells: dict[tuple[str, float], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if int(r["games"]) == last:
            kappa, reading = r["arm"].split(" | ")
            cells[(reading, float(kappa.removeprefix("kappa=")))].append(r)
    readings = []
    for reading in dict.fromkeys(reading for reading, _ in cells):
        rates = {k: win_rate(cells[(reading, k)], column) for k in KAPPAS if cells.get((reading, k))}
        if len(rates) < len(KAPPAS):
            continue

        low_kappas, high_kappas = (-1.0, -0.8), (-0.3, 0.0)
        # a above b: a's interval lies wholly above b's
        claim1 = all(rates[a][1] > rates[b][2] for a in low_kappas for b in high_kappas)
        half = all(rates[-0.8][1] > rates[b][2] for b in high_kappas)
        lost_zero = win_rate(cells[(reading, 0.0)], lost)
        order = sum(max(0.0, rates[b][0] - rates[a][0]) ** 2 for a in low_kappas for b in high_kappas)
        readings.append(Method2Reading(reading, rates, lost_zero, bool(claim1), bool(half), bool(lost_zero[1] > 0.5),
                                       float(order)))
    return sorted(readings, key=lambda m: (-(m.claim1 + m.claim2), m.order_distance))


def method2_table(rows: list[dict[str, Any]]) -> None:
    """The readings of :func:`method2_readings`, in Markdown, the rule's choice first."""
    cells = method2_readings(rows)
    last = max(int(r["games"]) for r in rows)
    print(f"\nStage 3, Method II, at {last} training games: won or ahead on marbles (95% interval) for each kappa; "
          "kappa = 0's lost rate; the claims (docs/reproductions.md)\n")
    print("| reading | " + " | ".join(f"κ = {k:g}" for k in KAPPAS) + " | κ = 0 lost | claim 1 (−1, −0.8 best) | "
          "claim 2 (κ = 0 loses most) | order distance |")
    print("|---|" + "---|" * (len(KAPPAS) + 4))
    for m in cells:
        texts = [f"{r:.0%} ({lo:.0%}–{hi:.0%})" for r, lo, hi in (m.rates[k] for k in KAPPAS)]
        r, lo, hi = m.lost_at_zero
        one = "holds" if m.claim1 else "−0.8 only" if m.claim1_half else "no"
        print(f"| {m.reading} | " + " | ".join(texts) + f" | {r:.0%} ({lo:.0%}–{hi:.0%}) | {one} | "
              f"{'holds' if m.claim2 else 'no'} | {m.order_distance:.3f} |")


def stage3_table(rows: list[dict[str, Any]], experiment: Experiment) -> None:
    _distance_table("Stage 3: distance from the paper's Table 2 for each training reading, test player and win "
                    "column", "test", stage3_distances(rows, experiment.checkpoints))


def grid_table(rows: list[dict[str, Any]], experiment: Experiment) -> None:
    """The distance table of :func:`grid_distances`, in Markdown."""
    _distance_table("Distance from the paper's Table 2", "benchmark", grid_distances(rows, experiment.checkpoints))


def _distance_table(title: str, second: str, cells: list[GridCell]) -> None:
    print(f"\n{title} (sum of squared differences of the win rates over both methods and four checkpoints; the "
          "least is the default; 95% interval: the runs resampled)\n")
    print(f"| training reading | {second} | runs a method | Method I (500 → 3,000) | Method I(a) | distance "
          "(95% interval) |")
    print("|---|---|---|---|---|---|")
    for distance, low, high, reading, test, parts, runs in cells:
        reading = reading.replace("|", "\\|")  # a stage-3 split holds bars: escaped in a Markdown table
        print(f"| {reading} | {test} | {runs} | {parts[0]} | {parts[1]} | {distance:.3f} ({low:.3f}–{high:.3f}) |")


def _plot_marbles(name, cells, arms, games, args, x_label, title) -> None:
    """Stones won (solid) and lost (dashed) a test game against training games, each the IQM over the runs
    with its bootstrap band and every run's own curve faintly behind, on a log axis when the first checkpoint is
    at 10 games (the paper's Figure 5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    for arm in arms:
        xs = [g for g in games if (arm, g) in cells]
        color = None
        for field_name, style, what in (("marbles_won", "-", "stones won"), ("marbles_lost", "--", "stones lost")):
            runs: dict[str, dict[int, float]] = defaultdict(dict)  # each run's own curve, faintly behind
            for g in xs:
                for r in cells[(arm, g)]:
                    runs[r["seed"]][g] = int(r[field_name]) / int(r["eval_games"])
            color = draw_band(ax, xs, [run_band(cells[(arm, g)], field_name) for g in xs], runs.values(),
                              linestyle=style, color=color, label=f"{arm}: {what}")
    if games and min(games) <= 10:
        ax.set_xscale("log")
    ax.set_ylim(0, 6.1)
    ax.set_xlabel(x_label)
    ax.set_ylabel("stones a game against the heuristic player\n"
                  "(IQM over the runs; band: bootstrap 95%; faint: each run)")
    ax.set_title(f"{title}: material", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    base = Path(args.plot or f"docs/img/{name}.png")
    plot = base.with_name(f"{base.stem}-marbles{base.suffix}")
    save_figure(fig, plot)
    print(f"plot: {plot}")


def _paper_name(published: tuple[float, ...], checkpoints: tuple[int, ...], arm: str) -> str:
    """The Table 2 method whose published rates are ``published`` at ``checkpoints`` (the reading search's arms
    all share one method's line), else ``arm``."""
    for method, rates in TABLE2.items():
        by_games = dict(zip((500, 1000, 2000, 3000), rates))
        if all(by_games.get(g) == rate for g, rate in zip(checkpoints, published)):
            return method
    return arm


def _plot(name, cells, arms, games, experiment, args, x_label, title, column="wins") -> None:
    if len(arms) > 30:  # a legend of that many lines says nothing: the table does
        print(f"no plot: {len(arms)} lines are too many for one figure")
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    drawn: set[tuple[float, ...]] = set()
    for arm in arms:
        xs = [g for g in games if (arm, g) in cells]
        runs: dict[str, dict[int, float]] = defaultdict(dict)  # each run's own curve, faintly behind
        for g in xs:
            for r in cells[(arm, g)]:
                runs[r["seed"]][g] = int(r[column]) / int(r["eval_games"])
        color = draw_band(ax, xs, [run_band(cells[(arm, g)], column) for g in xs], runs.values(), label=arm)
        paper_arm = cells[(arm, xs[0])][0]["arm"]
        if experiment and paper_arm in experiment.paper and experiment.paper[paper_arm] not in drawn:
            published = experiment.paper[paper_arm]
            drawn.add(published)  # each published line once (with several opponents, or arms of one method)
            ax.plot(experiment.checkpoints, published, linestyle="--", marker="x",
                    color=color, label=f"{_paper_name(published, experiment.checkpoints, paper_arm)} (paper)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(x_label)
    ax.set_ylabel(f"{COLUMN_NAMES[column]}: IQM over the runs\n(band: bootstrap 95%; faint: each run)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plot = Path(args.plot or f"docs/img/{name}.png")
    save_figure(fig, plot)
    print(f"plot: {plot}")


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", nargs="?", choices=[*EXPERIMENTS, "fig2"])
    parser.add_argument("--list", action="store_true", help="list the experiments")
    parser.add_argument("--seeds", type=int, default=None, help="runs per arm (default: the experiment's)")
    parser.add_argument("--seed", type=int, default=2003, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--eval-games", type=int, default=None,
                        help="test games per run and checkpoint (default: the experiment's; fig2: 100 a pairing "
                        "and run)")
    parser.add_argument("--opponent", action="append", default=None,
                        help="a test opponent (repeatable; default: the experiment's, else heuristic at 1 and 2 "
                        "plies); with --report-only, the rows against these opponents only")
    parser.add_argument("--arm", action="append", default=None, metavar="TEXT",
                        help="only the arms whose label contains TEXT (repeatable; default: every arm)")
    parser.add_argument("--workers", type=int, default=None,
                        help="runs trained at once (default 2; with --backend ray, all the Ray cluster's CPUs)")
    add_backend_args(parser, "the runs")
    parser.add_argument("--out", default="runs/experiments", help="where runs and rows are kept")
    parser.add_argument("--epsilon-min", type=float, default=None,
                        help="fig2 only: another floor under epsilon than the default's (into fig2-epsF)")
    parser.add_argument("--plot", default=None, help="the plot file (default docs/img/EXPERIMENT.png)")
    parser.add_argument("--no-plot", action="store_true", help="the tables only, no plot")
    parser.add_argument("--report-only", action="store_true",
                        help="tables and plot of the runs finished so far; nothing is trained or played")
    args = parser.parse_args(argv)
    if args.list or not args.experiment:
        for key, exp in EXPERIMENTS.items():
            print(f"{key}: {exp.title} ({len(exp.arms)} arms, checkpoints {', '.join(map(str, exp.checkpoints))})")
        print("fig2: Abalearn Figure 2, sampled networks of a Method I run against Net 10, 250, 2750")
        return 0
    if (args.eval_games is not None and args.eval_games < 2) or (args.seeds is not None and args.seeds < 1) or (
        args.workers is not None and args.workers < 1
    ):
        parser.error("--eval-games must be at least 2, --seeds and --workers at least 1")
    try:
        check_shared_folder(args, args.out)
        args.executor = executor_from_args(args, args.workers or (None if args.backend == "ray" else 2))
    except SumitoError as exc:
        parser.error(str(exc))
    if args.experiment == "fig2":
        args.eval_games = args.eval_games or 100
        run_fig2(args)
        return 0
    exp = EXPERIMENTS[args.experiment]
    args.eval_games = args.eval_games or exp.eval_games
    seeds = [args.seed + k for k in range(args.seeds or exp.seeds)]
    base = Path(args.out) / args.experiment
    jobs = [(args.experiment, arm, seed, exp.base, exp.checkpoints, base / f"{_slug(arm.label)}-s{seed}",
             tuple(args.opponent or exp.opponents or DEFAULT_OPPONENTS), args.eval_games, exp.test_players())
            for arm in exp.arms for seed in seeds
            if not args.arm or any(text in arm.label for text in args.arm)]
    if not jobs:
        parser.error(f"no arm of {args.experiment} matches --arm {' / '.join(args.arm)}")
    t0 = time.perf_counter()
    if args.report_only:
        finished = [job[5] / "rows.csv" for job in jobs if (job[5] / "rows.csv").exists()]
        print(f"{len(finished)} of {len(jobs)} runs finished", file=sys.stderr)
        rows = [row for path in finished for row in read_rows(path)]
        if args.opponent:  # the rows against these test opponents only (a plot of one benchmark reading)
            rows = [row for row in rows if row["opponent"] in args.opponent]
        if not rows:
            parser.error(f"no finished run of {args.experiment} in {base}")
    else:
        rows = [row for rows in _map(run_arm, jobs, args.executor) for row in rows]
        print(f"\n{len(jobs)} runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    summarize(args.experiment, rows, exp, args)
    if args.experiment == "readings-screen":
        screen_table(rows)
    if args.experiment == "readings-grid":
        grid_table(rows, exp)
    if args.experiment == "readings-stage3":
        stage3_table(rows, exp)
    if args.experiment == "readings-method2":
        method2_table(rows)
    return 0


if __name__ == "__main__":
    run_main(main)
