"""Alphalone report (Hakim & Zhou 2019): §4.1, Table 1 and Table 2 — TD-trained agents.

    python experiments/alphalone_tables.py --workers 1            # the report's counts
    python experiments/alphalone_tables.py --backend ray [--address ADDR]   # the games as Ray tasks
    python experiments/alphalone_tables.py --workers 2 --seeds 10        # over ten training runs (seeds 2019-2028)
    python experiments/alphalone_tables.py --games 4 --time-games 2 --baseline-games 4 --train-games 20

1. Trains the report's four agents by TD(0) (:mod:`sumito.learn.alphalone_td`): step sizes
   η = 1e-2, 1e-3, 1e-4, 1e-5 (agents 1–4), ``--train-games`` games each (the report's 100
   "iterations"), γ = 0.2, the authors' initial weights, on the ``--layout`` (mini), every agent
   with the training seed ``--seed``; ``--td-method`` ``code`` (the authors' ``tdlearning.py``,
   default) or ``afterstates`` (our earlier reading). The weights files go to ``OUT/weights``.
2. §4.1: every agent against the baseline "heuristic agent" (``alphalone:depth=0``: the best
   successor by the published weights — agent 2's as Black, agent 3's as White — no search),
   ``--baseline-games`` games per agent (default 100), half with each colour. The report: all
   four agents "beat the baseline agent 100% of the times and with an average of 5 moves".
3. Table 1: every agent as Black against every agent as White (the diagonal too), ``--games``
   games each (the report: 20), as ``alphalone:depth=D,weights=FILE`` players (defaults: the
   authors' code — thresholds, their move ordering, random picks between the two best inside the
   search, depth 1 without contact). Each cell gives the percentage of games Black won with its
   95% interval (outright wins: a draw counts as not won) and the average game length in plies
   ("moves": the authors count ``numRound``, one per ply), the draws in brackets when any.
4. Table 2: agent 2 as Black against agent 3 as White, ``--time-games`` games (the report: 10)
   for every time limit of ``--limits`` (``alphalone:time=T``) on one side, the other side
   unlimited, plus a row without limits; the percentage of games Black won, with its interval.

The games are the authors' game unless told otherwise: inline moves only (``--moves inline``:
their engine has no broadside moves), a draw after 101 plies (``--max-plies``: their
``AbaloneGame(100)`` ends once the round count passes 100) and no repetition rule
(``--repetitions 0``). ``--player-options`` adds options to every alphalone spec (e.g.
``ordering=own,two_best=root,adaptive=off,norm=l2`` for our earlier reading); ``--features``
sets the feature set of both the training and the players.

Games go through the arena: :func:`~sumito.arena.match.schedule` builds them (from the start
position unless ``--opening-plies``; every game has its own seed, derived from ``--seed``, for
the players' random choices), :func:`~sumito.arena.match.play_game` plays them in ``--workers``
processes (or as Ray tasks with ``--backend ray``: a local Ray instance, or the cluster at
``--address``, where ``--out`` is an absolute path on storage every node sees, since the players
read the agents' weights files from it), :func:`~sumito.arena.match.summarize_pair` counts. The
agents are trained here, one after another, before the games. The same seed gives the same
weights and, except where a time limit binds (wall-clock time), the same games. Output:
Markdown tables (see docs/results-alphalone.md).

Runs: ``--seeds N`` (default 1: the tables documented in docs/results-alphalone.md) repeats all of
this under the seeds S, S+1, ..., S+N-1 (S: ``--seed``): every run trains its own four agents with
its seed (the seed is part of the training settings, so of the weights files' digest) and plays
every part with its agents and game seeds derived from its seed, as one run does. With N > 1,
every cell gives the result over all runs' games with its 95% interval, as one run does, plus the
interquartile mean (IQM) of the runs' own rates with its percentile-bootstrap 95% band
(:func:`sumito.learn.bands.interval_estimate`) and the number of runs; the training table sums the
runs and the weights table gives the mean of the runs' agents. Under ``--td-method code`` (no
exploration) training draws no random numbers, so every run's agents are the same and the runs
differ in their games only. With one run the output is the same as before the option existed.

Resuming: every trained agent (its weights, named by a digest of its training settings, and its
training figures) and every finished game (``OUT/games.jsonl``, keyed by a digest of the game's
task) are kept under ``--out`` (default ``runs/alphalone``), so the same command after a kill
trains only the agents and plays only the games it lacks; other options share the folder safely,
because their agents and games have other digests. A run with more ``--seeds`` in the same folder
reuses the runs it shares with an earlier one (the first run of ``--seeds 10`` is ``--seeds 1``).

Counts: every run's games are also counted a run and a cell into ``OUT/cells.csv`` (``--cells``;
:data:`CELL_FIELDS`), small enough to commit: docs/reproductions.md's verdicts on this report are computed
from them (experiments/verdicts.py).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from sumito.arena.executor import check_shared_folder, executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.match import ArenaSettings, derive_seed, schedule, summarize_pair
from sumito.arena.ratings import score_interval
from sumito.cliargs import add_backend_args
from sumito.errors import SumitoError
from sumito.evaluation.alphalone import PUBLISHED_AGENTS, AlphaloneWeights
from sumito.evaluation.features import ALPHALONE_FEATURES
from sumito.fileio import atomic_write_rows, atomic_write_text, read_rows
from sumito.games.abalone import DrawRules
from sumito.learn.alphalone_td import REPORT_ETAS, TDConfig, train
from sumito.learn.bands import interval_estimate
from sumito.stopping import run_main

DEFAULT_LIMITS = (1.0, 0.1, 0.01, 0.001, 0.0001)
DEFAULT_SEED = 2019
PARTS = ("base", "t1", "t2")
#: a run's counts, a row a (run, cell): what docs/reproductions.md's verdicts read (experiments/verdicts.py).
#: The cell's first player (the agent in §4.1; Black in Tables 1 and 2) as Black and as White: wins, draws,
#: losses. ``cell`` is the cell's key after its part: an agent ``k`` (§4.1), ``b/w`` (Table 1's agents as
#: Black and White, from 0), ``none`` or ``black/T`` / ``white/T`` (Table 2: which side is limited to T s).
CELL_FIELDS = ("seed", "part", "cell", "black_wins", "black_draws", "black_losses", "white_wins", "white_draws",
               "white_losses")


def write_cells(path: Path, seeds: list[int], results: dict[tuple, list]) -> None:
    """Every (run, cell)'s counts (:data:`CELL_FIELDS`) to ``path``, atomically."""
    rows = []
    for (r, part, *key), games in results.items():
        s = summarize_pair(games, 0, 1)
        rows.append(dict(seed=seeds[r], part=part, cell="/".join(f"{k:g}" if isinstance(k, float) else str(k)
                                                                 for k in key),
                         black_wins=s.as_black[0], black_draws=s.as_black[1], black_losses=s.as_black[2],
                         white_wins=s.as_white[0], white_draws=s.as_white[1], white_losses=s.as_white[2]))
    atomic_write_rows(path, CELL_FIELDS, rows)


def read_cells(path: Path) -> dict[tuple[str, str], list[dict[str, int]]]:
    """A run's counts written by :func:`write_cells`, by (part, cell): a row a run, as integers."""
    cells: dict[tuple[str, str], list[dict[str, int]]] = {}
    for row in read_rows(path):
        cells.setdefault((row["part"], row["cell"]), []).append(
            {k: int(row[k]) for k in CELL_FIELDS if k not in ("part", "cell")})
    return cells


def eta_label(eta: float) -> str:
    exp = math.log10(eta)
    return f"1e{round(exp)}" if abs(exp - round(exp)) < 1e-9 else f"{eta:g}"


def cell_tasks(black: str, white: str, games: int, settings: ArenaSettings) -> list:
    """``games`` arena games with ``black`` always Black (the schedule alternates colours, so ask
    for twice as many and keep those with the first player Black; the others are never played)."""
    return [t for t in schedule([black, white], 2 * games, settings) if t.black_id == 0]


def rate(wins: int, games: int) -> str:
    """``wins`` of ``games`` as a percentage with its 95% interval (outright wins)."""
    _, low, high = score_interval(wins, 0, games - wins)
    return f"{100 * wins / games:.0f}% [{100 * low:.0f}–{100 * high:.0f}]"


def markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="games per Table 1 cell (the report: 20)")
    p.add_argument("--time-games", type=int, default=10, help="games per Table 2 cell (the report: 10)")
    p.add_argument("--baseline-games", type=int, default=100, help="games per agent against the baseline (§4.1)")
    p.add_argument("--train-games", type=int, default=100, help="TD training games per agent (the report: 100)")
    p.add_argument(
        "--agents", choices=("trained", "published"), default="trained",
        help="the four agents: trained here (default) or the authors' published weights (learnedWeights.py)",
    )
    p.add_argument("--td-method", default="code", help="TD method: code (the authors', default) or afterstates")
    p.add_argument("--features", default="code", help="feature set of training and players: code (default) or text")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"training and game seed (of the first run with --seeds; default {DEFAULT_SEED})")
    p.add_argument(
        "--seeds", type=int, default=1, metavar="N",
        help="training runs: the agents trained, and every part played, under the seeds S, S+1, ..., S+N-1 "
             "(S: --seed); every cell then gives the result over all runs' games and the IQM of the runs' own "
             "rates with its bootstrap band. Default 1 (one run, the tables documented in "
             "docs/results-alphalone.md); the project's rule for a learning claim is at least 10",
    )
    p.add_argument("--layout", default="mini", help="board (the report: mini)")
    p.add_argument("--moves", choices=("inline", "all"), default="inline", help="inline only (default) or all moves")
    p.add_argument("--max-plies", type=int, default=101, help="draw after this many plies (default 101)")
    p.add_argument("--repetitions", type=int, default=0, help="draw on this repetition of a position (0: never)")
    p.add_argument("--depth", type=int, default=2, help="alphalone search depth per player (default 2 = 4 plies)")
    p.add_argument("--player-options", default="", help="extra alphalone options for every agent, e.g. two_best=root")
    p.add_argument(
        "--limits",
        default=",".join(f"{t:g}" for t in DEFAULT_LIMITS),
        help="Table 2's time limits in seconds, comma-separated",
    )
    p.add_argument("--parts", default=",".join(PARTS), help="what to play: base (§4.1), t1, t2 (default all)")
    p.add_argument("--opening-plies", type=int, default=0, help="random opening plies per game pair (default 0)")
    p.add_argument("--workers", type=int, default=None,
                   help="game processes (default: all cores; with --backend ray, all the Ray cluster's CPUs)")
    add_backend_args(p)
    p.add_argument("--out", default="runs/alphalone", help="where agents and games are kept (default runs/alphalone)")
    p.add_argument("--cells", default="",
                   help="where the games' counts a run and cell go (default OUT/cells.csv; the verdicts read them)")
    args = p.parse_args(argv)
    for name in ("games", "time_games", "train_games", "baseline_games", "max_plies", "seeds"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.repetitions < 0 or args.repetitions == 1:
        p.error("--repetitions must be 0 (off) or at least 2")
    if args.depth < 1:
        p.error("--depth must be at least 1")
    try:
        args.limits = tuple(float(x) for x in args.limits.split(",") if x.strip())
    except ValueError:
        p.error(f"--limits must be comma-separated seconds, not {args.limits!r}")
    if not args.limits or any(not t > 0 for t in args.limits):
        p.error("--limits must be positive seconds")
    args.parts = tuple(x.strip() for x in args.parts.split(",") if x.strip())
    if not args.parts or any(x not in PARTS for x in args.parts):
        p.error(f"--parts must be some of {', '.join(PARTS)}")
    try:  # the weights files the players read are under --out
        check_shared_folder(args, args.out)
    except SumitoError as exc:
        p.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    try:
        return run(args, Path(args.out), t_start)
    except SumitoError as exc:
        print(f"alphalone_tables: error: {exc}", file=sys.stderr)
        return 2


def trained_agent(config: TDConfig, path: Path) -> tuple[AlphaloneWeights, dict]:
    """The agent trained by ``config``: from ``path`` and its ``.train.json`` (written last, so its
    presence means both are whole) when an earlier run got that far, else trained now and kept."""
    figures = path.with_suffix(".train.json")
    if figures.exists():
        with contextlib.suppress(ValueError, KeyError, SumitoError):
            kept = AlphaloneWeights.load(path), json.loads(figures.read_text())
            print(f"{path.name}: kept from an earlier run", file=sys.stderr)
            return kept
    result = train(config)
    result.weights.save(path)
    summary = dict(games=result.games, outcomes=dict(result.outcomes), plies=result.plies, clipped=result.clipped,
                   seconds=result.seconds)
    atomic_write_text(figures, json.dumps(summary) + "\n")
    print(f"{path.name}: trained in {result.seconds:.1f} s", file=sys.stderr)
    return result.weights, summary


def run(args: argparse.Namespace, out: Path, t_start: float) -> int:
    executor = executor_from_args(args, args.workers)  # before training: a missing Ray fails now, in one line
    folder = out / "weights"
    folder.mkdir(parents=True, exist_ok=True)
    inline = args.moves == "inline"
    seeds = [args.seed + r for r in range(args.seeds)]  # the runs
    several = len(seeds) > 1
    # ---------------------------------------------------------------- training
    labels = [f"Agent {k} (η={eta_label(eta)})" for k, eta in enumerate(REPORT_ETAS, start=1)]
    paths: list[list[str]] = []  # by run, by agent: the weights file the players read
    trained: list[list[tuple[AlphaloneWeights, dict | None]]] = []  # by run, by agent
    config = None
    for seed in seeds:
        paths.append([])
        trained.append([])
        for k, eta in enumerate(REPORT_ETAS, start=1):
            # the seed is a field of the configuration, so every run's agents have their own digest and file
            config = TDConfig(eta=eta, games=args.train_games, layout=args.layout, seed=seed,
                              method=args.td_method, features=args.features, inline_only=inline)
            if args.agents == "published":
                weights = AlphaloneWeights(*PUBLISHED_AGENTS[eta])
                path = folder / f"agent{k}-published.json"
                weights.save(path)
                figures = None
            else:
                digest = hashlib.sha256(repr(config).encode()).hexdigest()[:12]
                path = folder / f"agent{k}-eta{eta_label(eta)}-{digest}.json"
                weights, figures = trained_agent(config, path)
            paths[-1].append(str(path))
            trained[-1].append((weights, figures))
    n = len(labels)
    train_rows = []
    if args.agents != "published":
        for k, eta in enumerate(REPORT_ETAS):
            runs = [trained[r][k][1] for r in range(len(seeds))]
            games = sum(f["games"] for f in runs)
            o = {side: sum(f["outcomes"].get(side, 0) for f in runs) for side in ("black", "white", "draw")}
            train_rows.append(
                [f"Agent {k + 1}", eta_label(eta)] + ([str(len(runs))] if several else []) + [
                    str(games),
                    f"{o['black']}/{o['white']}/{o['draw']}",
                    f"{sum(f['plies'] for f in runs) / games:.1f}",
                    str(sum(f["clipped"] for f in runs)),
                ]
            )
    weight_rows = {name: [name] for name in ALPHALONE_FEATURES}
    for k in range(n):  # one run: its weights; several: the mean over the runs' agents
        black, white = trained[0][k][0].black, trained[0][k][0].white
        if several:
            black = np.mean([trained[r][k][0].black for r in range(len(seeds))], axis=0).tolist()
            white = np.mean([trained[r][k][0].white for r in range(len(seeds))], axis=0).tolist()
        for name, b, w in zip(ALPHALONE_FEATURES, black, white):
            weight_rows[name].append(f"{b:.3f} / {w:.3f}")

    extra = [x.strip() for x in args.player_options.split(",") if x.strip()]
    if args.features != "code":
        extra.append(f"features={args.features}")

    def spec(r: int, k: int | None, limit: float | None = None) -> str:
        parts = [f"depth={args.depth}" if k is not None else "depth=0"]
        if limit is not None:
            parts.append(f"time={limit:g}")
        parts += extra
        if k is not None:
            parts.append(f"weights={paths[r][k]}")
        return "alphalone:" + ",".join(parts)

    rules = DrawRules(max_plies=args.max_plies, repetitions=args.repetitions or None, no_capture_plies=None)

    def settings(r: int, *key: int) -> ArenaSettings:
        return ArenaSettings.from_layout(
            args.layout, inline_only=inline, rules=rules, opening_plies=args.opening_plies,
            seed=derive_seed(seeds[r], *key),
        )

    # ---------------------------------------------------------------- the games
    cells: dict[tuple, list] = {}  # (run, *cell) -> tasks
    for r in range(len(seeds)):
        if "base" in args.parts:
            for k in range(n):
                cells[(r, "base", k)] = schedule([spec(r, k), spec(r, None)], args.baseline_games, settings(r, 3, k))
        if "t1" in args.parts:
            for b in range(n):
                for w in range(n):
                    cells[(r, "t1", b, w)] = cell_tasks(spec(r, b), spec(r, w), args.games, settings(r, 1, b, w))
        if "t2" in args.parts:
            cells[(r, "t2", "none")] = cell_tasks(spec(r, 1), spec(r, 2), args.time_games, settings(r, 2, 0))
            for i, limit in enumerate(args.limits, start=1):
                cells[(r, "t2", "black", limit)] = cell_tasks(spec(r, 1, limit), spec(r, 2), args.time_games,
                                                             settings(r, 2, i, 1))
                cells[(r, "t2", "white", limit)] = cell_tasks(spec(r, 1), spec(r, 2, limit), args.time_games,
                                                             settings(r, 2, i, 2))
    keys, tasks = [], []
    for key, cell in cells.items():
        keys += [key] * len(cell)
        tasks += cell
    results: dict[tuple, list] = {key: [] for key in cells}
    journal = GameJournal(out / "games.jsonl")
    print(f"{len(tasks)} games ({len(journal)} in {journal.path}) with {executor.workers} worker(s)",
          file=sys.stderr)
    t0 = time.perf_counter()
    with contextlib.closing(journal.play(executor, tasks)) as stream:
        for done, (i, result) in enumerate(stream, start=1):
            results[keys[i]].append(result)
            if done % 100 == 0 or done == len(tasks):
                print(f"  {done}/{len(tasks)} games, {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    write_cells(Path(args.cells) if args.cells else out / "cells.csv", seeds, results)

    def pooled(*key) -> list:
        """The cell's games over all runs."""
        return [g for r in range(len(seeds)) for g in results[(r, *key)]]

    def runs_band(pairs: list[tuple[int, int]]) -> str:
        """The IQM over the runs of their own rates (``(wins, games)`` a run; runs without games left out)
        with its percentile-bootstrap 95% band."""
        rates = [w / g for w, g in pairs if g]
        if not rates:
            return "–"
        e = interval_estimate(np.array(rates), "iqm")
        return f"{100 * e.value:.0f}% [{100 * e.low:.0f}–{100 * e.high:.0f}]"

    def black_wins(r: int, *key) -> tuple[int, int]:
        s = summarize_pair(results[(r, *key)], 0, 1)
        return s.as_black[0], s.games

    def black_share(*key) -> tuple[str, float]:
        s = summarize_pair(pooled(*key), 0, 1)
        wins, draws, _ = s.as_black
        return rate(wins, s.games) + (f" ({draws} drawn)" if draws else ""), s.average_plies

    def black_band(*key) -> str:
        return runs_band([black_wins(r, *key) for r in range(len(seeds))])

    # ---------------------------------------------------------------- tables
    assert config is not None
    repeats = f"{args.repetitions}-fold repetition draws" if args.repetitions else "no repetition rule"
    game = (f"{args.layout} board, {'inline moves only' if inline else 'all moves'}, a draw after "
            f"{args.max_plies} plies, {repeats}")
    seed_text = f"seed {args.seed}" if not several else f"seeds {seeds[0]}–{seeds[-1]} (one run each)"
    runs_text = (f" in each of {len(seeds)} runs (training seeds {seeds[0]}–{seeds[-1]}; IQM: the interquartile "
                 "mean of the runs' own rates with its percentile-bootstrap 95% band)") if several else ""
    if args.agents == "published":
        print("**Agents**: the authors' published weights (learnedWeights.py), not trained here\n")
    else:
        print(f"**Training** ({args.train_games} games per agent and colour run on the {args.layout} board, method "
              f"{args.td_method}, features {args.features}, {seed_text}, γ = 0.2, "
              f"N = {config.utility_scale:g}, 1-ply greedy self-play, explore {config.explore_rate:g}, "
              f"cap {config.ply_cap} plies)\n")
        head = ["agent", "η", "games", "Black/White/drawn wins", "plies a game", "clipped updates"]
        print(markdown(head[:2] + (["runs"] if several else []) + head[2:], train_rows))
    mean = ""
    if several and args.agents != "published":
        if all(trained[r][k][0] == trained[0][k][0] for r in range(len(seeds)) for k in range(n)):
            mean = (f"; the same in all {len(seeds)} runs: this training draws no random numbers, so the runs "
                    "differ in their games' seeds only")
        else:
            mean = f"; the mean over the {len(seeds)} runs' agents"
    print(f"\n**Weights** (Black's / White's, each from its own side{mean})\n")
    print(markdown(["feature"] + [f"Agent {k}" for k in range(1, n + 1)], list(weight_rows.values())))
    agent_spec = spec(0, 0).replace(f"weights={paths[0][0]}", "weights=FILE")
    if "base" in args.parts:
        print(f"\n**§4.1**: each agent (`{agent_spec}`) against the baseline (`{spec(0, None)}`, the published "
              f"weights), {args.baseline_games} games per agent, half with each colour{runs_text}; {game}. Wins "
              "with 95% intervals (outright wins), and the average length in plies of the games the agent won as "
              "Black and as White\n")
        rows = []

        def won_plies(k: int, color: int) -> str:
            won = [r.plies for r in pooled("base", k) if r.winner == color and
                   (r.task.black_id if color == 1 else r.task.white_id) == 0]
            return f"{sum(won) / len(won):.1f}" if won else "–"

        for k in range(n):
            s = summarize_pair(pooled("base", k), 0, 1)
            nb, nw = sum(s.as_black), sum(s.as_white)
            cols = [rate(s.wins, s.games), f"{rate(s.as_black[0], nb)} of {nb}", f"{rate(s.as_white[0], nw)} of {nw}"]
            if several:
                per_run = [summarize_pair(results[(r, "base", k)], 0, 1) for r in range(len(seeds))]
                cols = [cols[0], runs_band([(p.wins, p.games) for p in per_run]),
                        cols[1], runs_band([(p.as_black[0], sum(p.as_black)) for p in per_run]),
                        cols[2], runs_band([(p.as_white[0], sum(p.as_white)) for p in per_run])]
            rows.append([labels[k], *cols, str(s.draws), f"{s.losses}", f"{won_plies(k, 1)} / {won_plies(k, 2)}"]
                        + ([str(len(seeds))] if several else []))
        head = ["agent", "wins", "as Black", "as White", "drawn", "lost", "plies a won game (B / W)"]
        if several:
            head = ["agent", "wins", "wins: IQM of the runs", "as Black", "as Black: IQM", "as White",
                    "as White: IQM", "drawn", "lost", "plies a won game (B / W)", "runs"]
        print(markdown(head, rows))
    if "t1" in args.parts:
        print(
            f"\n**Table 1**: percentage of games Black won [95% interval] and the average game length in plies"
            f"{'; then the IQM over the runs [bootstrap 95%]' if several else ''}; "
            f"{args.games} games a cell{runs_text}, `{agent_spec}`; {game}\n"
        )
        rows = []
        for w in range(n):
            row = [labels[w]]
            for b in range(n):
                share, plies = black_share("t1", b, w)
                row.append(f"{share}, {plies:.1f} plies" + (f"; IQM {black_band('t1', b, w)}" if several else ""))
            rows.append(row)
        print(markdown(["White \\ Black", *labels], rows))
        every = len(seeds) * args.games

        def total(wins: list[int], cells: int) -> str:  # each run's wins over ``cells`` cells of the table
            text = rate(sum(wins), cells * every)
            if several:
                text += f", IQM {runs_band([(x, cells * args.games) for x in wins])}"
            return text

        runs = range(len(seeds))
        # black[r][b][w]: Black's wins in run r with agent b as Black against agent w; white[r][w][b] White's
        black = [[[summarize_pair(results[(r, "t1", b, w)], 0, 1).as_black[0] for w in range(n)] for b in range(n)]
                 for r in runs]
        white = [[[summarize_pair(results[(r, "t1", b, w)], 1, 0).as_white[0] for b in range(n)] for w in range(n)]
                 for r in runs]
        each = f"{n * every} games each" + (f", {len(seeds)} runs" if several else "")
        print(f"\nBlack's wins over each column ({each}): " + "; ".join(
            f"{labels[b]} {total([sum(black[r][b]) for r in runs], n)}" for b in range(n)))
        print("\nWhite's wins over each row: " + "; ".join(
            f"{labels[w]} {total([sum(white[r][w]) for r in runs], n)}" for w in range(n)))
        print(f"\nBlack's wins over all the cells ({n * n * every} games): "
              f"{total([sum(map(sum, black[r])) for r in runs], n * n)}")
    if "t2" in args.parts:
        print(
            f"\n**Table 2**: percentage of games Black won [95% interval], {labels[1]} as Black against "
            f"{labels[2]} as White, {args.time_games} games a cell{runs_text}; the time limit "
            f"(`alphalone:time=T`) on one side only, and that side's mean thinking time a move (ms); {game}\n"
        )

        def move_ms(key: tuple, black: bool) -> str:
            s = summarize_pair(pooled(*key), 0, 1)
            return f"{1000 * (s.move_time_a if black else s.move_time_b):.2f}"

        def row(label: str, kb: tuple, kw: tuple) -> list[str]:
            if not several:
                return [label, black_share(*kb)[0], move_ms(kb, True), black_share(*kw)[0], move_ms(kw, False)]
            return [label, black_share(*kb)[0], black_band(*kb), move_ms(kb, True), black_share(*kw)[0],
                    black_band(*kw), move_ms(kw, False), str(len(seeds))]

        none_key = ("t2", "none")
        rows = [row("None", none_key, none_key)]
        for limit in args.limits:
            rows.append(row(f"{limit:g}", ("t2", "black", limit), ("t2", "white", limit)))
        head = ["time limit (s)", "Black limited", "its ms a move", "White limited", "its ms a move"]
        if several:
            head = ["time limit (s)", "Black limited", "IQM of the runs", "its ms a move", "White limited",
                    "IQM of the runs", "its ms a move", "runs"]
        print(markdown(head, rows))
    print(f"\n({len(tasks)} games, {time.perf_counter() - t_start:.0f} s in all)")
    return 0


if __name__ == "__main__":
    run_main(main)
