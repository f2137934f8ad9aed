"""The learning experiments that ``learning_curves.py`` runs: each one's arms (training configurations),
checkpoints, test opponents and the paper's figures, and the readings of the reading search
(docs/reproductions.md) they are built from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sumito.defaults import METHOD_PRESETS
from sumito.models.network import network_path


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
# the older hypotheses (other readings of the paper): two runs an arm under the reading before the reading
# search, tested against the one-ply heuristic player, won outright as their column
OLD_HYPOTHESES: dict[str, Any] = dict(seeds=2, opponents=("heuristic:depth=1,ties=random",), base=OLD_READING,
                                      column="wins")

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


def table2_of(arms: tuple[Arm, ...]) -> dict[str, tuple[float, ...]]:
    """The paper's Table 2 line of each arm labelled ``METHOD | ...`` (its method's)."""
    return {arm.label: TABLE2[arm.label.split(" | ")[0]] for arm in arms}


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
        **OLD_HYPOTHESES,
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
        **OLD_HYPOTHESES,
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
        paper=table2_of(grid_arms()),
        column="wins",
    ),
    "readings-stage3": Experiment(
        "The reading search, stage 3: the board's split, exploration, the test's tie-break and the win column",
        stage3_arms(),
        (500, 1000, 2000, 3000),
        seeds=4,
        opponents=(STAGE3_BENCHMARK,),
        players=STAGE3_PLAYERS,
        paper=table2_of(stage3_arms()),
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
    # recorded as forfeits (learning_curves._forfeit_rows)
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
