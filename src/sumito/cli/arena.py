"""The arena's subcommands: ``sumito match``, ``sumito tournament`` and ``sumito games``.

``add_commands(sub)`` registers them on the ``sumito`` argument parser. Errors are
:class:`~sumito.errors.SumitoError` subclasses (printed by ``sumito.cli.main`` as
``sumito: error: …``, exit status 2); Ctrl-C stops the workers, keeps and reports the finished
games, marks the run ``interrupted`` and exits with status 130. ``--workers`` is capped at
:data:`sumito.procs.MAX_WORKERS` with a one-line note; the workers die with the command
(:mod:`sumito.arena.executor`), and a run whose command was killed outright is marked
``interrupted`` the next time the archive is opened (:mod:`sumito.arena.db`);
``sumito games runs`` lists the runs and how each ended. ``--backend ray [--address ADDR]`` plays the
games as Ray tasks instead (:class:`~sumito.arena.executor.RayExecutor`): the same games, stored here.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import secrets
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sumito.arena.db import GameArchive
from sumito.arena.errors import ArenaError
from sumito.arena.executor import Executor, executor_from_args, make_executor, uses_ray
from sumito.arena.match import (
    MAX_SEED,
    ArenaSettings,
    GameResult,
    PairSummary,
    Schedule,
    play_game,
    play_scheduled,
    summarize_pair,
)
from sumito.arena.tournament import TournamentSummary, summarize_tournament
from sumito.cliargs import (
    rules_from_args,
)
from sumito.cliargs.position import position_from_args
from sumito.console import stdout_console
from sumito.games.abalone import LAYOUTS, DrawRules, Game, write_records
from sumito.procs import cap_workers
from sumito.progress import Progress

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


# the executor factory; tests replace it to simulate an interruption. It is called as factory(workers) for the
# default process backend, and as factory(workers, backend=..., address=...) otherwise (--backend, --address)
executor_factory: Callable[..., Executor] = make_executor


def _settings_from_args(args: argparse.Namespace) -> ArenaSettings:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    if not 0 <= seed <= MAX_SEED:
        raise ArenaError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
    rules = rules_from_args(args)
    options = {"rules": rules, "movetime": args.movetime, "opening_plies": args.opening_plies, "seed": seed,
               "clock": args.tc}
    position = position_from_args(args)
    settings = ArenaSettings.from_position(position, **options)
    outcome = Game(settings.start_position(), rules).outcome()
    if outcome is not None:
        raise ArenaError(f"the start position is already decided: {outcome.describe()}")
    return settings


# --------------------------------------------------------------------------- running games
class _Run:
    """Plays the scheduled games, stores each as it finishes, and shows progress."""

    def __init__(self, kind: str, players: list[str], games_per_pair: int, args: argparse.Namespace) -> None:
        self.kind = kind
        self.players = players
        self.games_per_pair = games_per_pair
        self.args = args
        self.settings = _settings_from_args(args)
        self.tasks = Schedule(players, games_per_pair, self.settings)  # each game made as it is played
        workers = args.workers
        # on Ray the executor bounds it (by the cluster's CPUs); below 1 is refused by the option's type
        if workers is not None and not uses_ray(args):
            workers = cap_workers(workers)  # a note on stderr when it was cut: never 1,000 processes
        self.executor = executor_from_args(args, workers, executor_factory)
        self.results: list[GameResult] = []
        self.stored = 0
        self.archive: GameArchive | None = None if args.no_db else GameArchive(args.db)
        self.run_id: int | None = None

    def settings_text(self) -> str:
        """One line: start, variant, draw rules, opening, clock and seed (enough to rerun it)."""
        s = self.settings
        parts = [s.layout or f"position {s.start}"]
        if s.inline_only:
            parts.append("inline moves only")
        if s.layout is None or s.win_threshold != LAYOUTS[s.layout].variant.win_threshold:
            parts.append(f"{s.win_threshold} to win")
        parts.append(f"draw at {_rules_text(s.rules)}")
        if getattr(self.args, "adjudicate", "none") == "marbles":
            parts.append("draws scored on marbles")
        parts.append(f"opening {s.opening_plies} random plies per pair of games" if s.opening_plies else "no opening")
        if s.movetime:
            parts.append(f"{s.movetime:g} s per move")
        if s.clock:
            parts.append(f"clock {s.clock[0]:g}+{s.clock[1]:g} s")
        parts.append(f"seed {s.seed}")
        return "; ".join(parts)

    def play(self, progress_text: Callable[[GameResult | None], str]) -> None:
        """Play every game, storing each as it finishes; ``progress_text(result)`` is the progress's status.

        Raises KeyboardInterrupt on Ctrl-C, after the workers are stopped and the run is marked
        interrupted; ``self.results`` then holds the finished games.
        """
        status = "failed"
        try:
            progress = Progress(self.kind, len(self.tasks), "games", status=progress_text(None), quiet=self.args.quiet)
            if self.archive is not None:
                self.run_id = self.archive.start_run(
                    self.kind, self.players, self.games_per_pair, len(self.tasks), self.settings
                )
            progress.label = f"{self.kind} {self.run_id or ''}".rstrip()
            if not self.args.quiet:  # in a log too: which run this is, where and how its games are played
                workers = min(self.executor.workers, len(self.tasks))
                on = "Ray worker(s)" if uses_ray(self.args) else "worker(s)"
                print(f"{progress.label.capitalize()}: {len(self.tasks)} games on {workers} {on}; "
                      f"{self.settings_text()}", file=sys.stderr, flush=True)
            games = play_scheduled(lambda batch: self.executor.run(play_game, batch), self.tasks)
            with progress, contextlib.closing(games) as stream:
                for _, result in stream:
                    self.results.append(result)
                    if self.archive is not None and self.run_id is not None:
                        self.archive.add_game(self.run_id, self.players, result, self.settings.layout)
                        self.stored += 1
                    progress.update(advance=1, status=progress_text(result))
            status = "finished"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            if self.archive is not None:
                if self.run_id is not None:
                    with contextlib.suppress(Exception):
                        # count what the database holds: Ctrl-C may land between a game's commit
                        # and the counter's increment
                        self.stored = self.archive.count(run=self.run_id)
                    with contextlib.suppress(Exception):
                        self.archive.end_run(self.run_id, status)
                self.archive.close()

    def stored_text(self) -> str:
        if self.archive is None:
            return "not stored (--no-db)"
        name = f"{self.kind} {self.run_id}"
        return f"{self.stored} game(s) stored in {self.archive.path} ({name}; `sumito games --run {self.run_id}`)"

    def interrupted(self) -> int:
        print(
            f"sumito: interrupted: {len(self.results)} of {len(self.tasks)} games finished; "
            + ("none stored (--no-db)" if self.archive is None else f"{self.stored} stored in {self.archive.path}"),
            file=sys.stderr,
        )
        return 130


def cmd_match(args: argparse.Namespace) -> int:
    players = [args.a.strip(), args.b.strip()]
    run = _Run("match", players, args.games, args)

    adjudicate = args.adjudicate == "marbles"
    running = PairSummary(0, 1, adjudicate)

    def progress_text(result: GameResult | None) -> str:
        if result is not None:
            running.add(result)
        return f"A {running.wins}  draws {running.draws}  B {running.losses}"

    console = stdout_console()
    return _play_and_report(
        run,
        progress_text,
        lambda partial: print_match(console, players, summarize_pair(run.results, adjudicate=adjudicate), run, partial),
    )


def cmd_tournament(args: argparse.Namespace) -> int:
    players = [p.strip() for p in args.players]
    dupes = [p for p, k in Counter(players).items() if k > 1]
    if dupes:
        raise ArenaError(f"player {dupes[0]!r} is listed twice; give each player once")
    if len(players) < 2:
        raise ArenaError("a tournament needs at least two players")
    run = _Run("tournament", players, args.games, args)

    def progress_text(result: GameResult | None) -> str:
        return f"{len(players)} players"

    console = stdout_console()

    def report(partial: bool) -> None:
        summary = summarize_tournament(
            players, run.results, args.anchor, args.adjudicate == "marbles", prior_draws=args.prior_draws
        )
        print_tournament(console, summary, run, partial)

    return _play_and_report(run, progress_text, report)


def _play_and_report(run: _Run, progress_text: Callable, report: Callable[[bool], None]) -> int:
    """Play the run's games and print the report; after Ctrl-C, the report of the finished games."""
    try:
        run.play(progress_text)
    except KeyboardInterrupt:
        if run.results:
            report(True)
        return run.interrupted()
    report(False)
    return 0


# --------------------------------------------------------------------------- the games archive
def cmd_games(args: argparse.Namespace) -> int:
    filters = {"ids": args.id, "player": args.player, "layout": args.layout, "result": args.result, "run": args.run}
    if args.action == "runs":
        return _list_runs(args)
    if args.action == "export":
        if not args.out:
            raise ArenaError("games export needs --out FILE")
        with GameArchive(args.db, create=False) as archive:
            games = archive.games(limit=args.limit or None, newest_first=True, **filters)[::-1]
            _check_ids(args.id, games, archive.path)
            if not games:
                raise ArenaError(f"no stored game in {archive.path} matches")
            records = [g.to_record(str(archive.path)) for g in games]
        write_records(args.out, records)
        print(f"wrote {len(records)} game(s) to {args.out}")
        return 0
    if args.out:
        raise ArenaError("--out is for `sumito games export`")
    limit = 50 if args.limit is None else args.limit
    with GameArchive(args.db, create=False) as archive:
        total = archive.count(**filters)
        games = archive.games(limit=limit or None, newest_first=True, **filters)
        _check_ids(args.id, games, archive.path)
        path = archive.path
    from rich.table import Table

    console = stdout_console()
    table = Table(title=f"Games in {path}", title_justify="left")
    for name, justify in (
        ("id", "right"),
        ("date (UTC)", "left"),
        ("run", "left"),
        ("black", "left"),
        ("white", "left"),
        ("result", "left"),
        ("reason", "left"),
        ("plies", "right"),
    ):
        # player specs fold onto a second line rather than end in "…" on an 80-column terminal
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for g in games:
        table.add_row(
            *map(
                _text,
                (
                    str(g.id),
                    g.finished[:16].replace("T", " "),
                    f"{g.run_kind} {g.run_id}",
                    g.black_played,
                    g.white_played,
                    g.result,
                    g.reason,
                    str(g.plies),
                ),
            )
        )
    console.print(table)
    console.print(_text(f"{len(games)} of {total} matching game(s) shown, newest first"))
    return 0


def _list_runs(args: argparse.Namespace) -> int:
    """``sumito games runs``: the matches and tournaments, newest first, with how each ended."""
    if args.out or args.id or args.player or args.layout or args.result:
        raise ArenaError("games runs takes only --db, --run and --limit")
    limit = 50 if args.limit is None else args.limit
    with GameArchive(args.db, create=False) as archive:
        runs = archive.runs(limit=limit or None, ids=None if args.run is None else [args.run])
        path = archive.path
    if args.run is not None and not runs:
        raise ArenaError(f"there is no run {args.run} in {path}")
    from rich.table import Table

    console = stdout_console()
    table = Table(title=f"Runs in {path}", title_justify="left")
    for name, justify in (("run", "left"), ("started (UTC)", "left"), ("status", "left"), ("games", "right"),
                          ("players", "left")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for r in runs:
        table.add_row(
            *map(
                _text,
                (
                    f"{r.kind} {r.id}",
                    r.started[:16].replace("T", " "),
                    r.status,
                    f"{r.games_stored}/{r.games_planned}",
                    ", ".join(r.players),
                ),
            )
        )
    console.print(table)
    console.print(_text(f"{len(runs)} run(s) shown, newest first"))
    return 0


def _check_ids(ids: Sequence[int] | None, games: Sequence, path: Path) -> None:
    if not ids:
        return
    missing = sorted(set(ids) - {g.id for g in games})
    if missing:
        raise ArenaError(f"no game {missing[0]} in {path} (that matches the filters)")


# --------------------------------------------------------------------------- output
def _text(s: str) -> Text:
    from rich.text import Text

    return Text(s)


def fmt_elo(x: float) -> str:
    if math.isnan(x):
        return "?"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


def fmt_seconds(x: float) -> str:
    if math.isnan(x):
        return "-"
    if x < 1e-3:
        return f"{x * 1e6:.0f} µs"
    if x < 1.0:
        return f"{x * 1000:.1f} ms"
    return f"{x:.2f} s"


def _rules_text(rules: DrawRules) -> str:
    parts = [f"{rules.max_plies} plies" if rules.max_plies else "no ply cap"]
    parts.append(f"{rules.repetitions}-fold repetition" if rules.repetitions else "no repetition")
    if rules.no_capture_plies:
        parts.append(f"{rules.no_capture_plies} plies without a push-off")
    if rules.no_moves != "draw":
        parts.append("no legal move loses")
    return ", ".join(parts)


def _interval_text(low: float, high: float, fmt: Callable[[float], str]) -> str:
    return f"{fmt(low)} to {fmt(high)}"


def print_match(console: Console, players: list[str], s: PairSummary, run: _Run, partial: bool = False) -> None:
    from rich.table import Table

    a, b = players
    title = f"Match {run.run_id or ''}".rstrip() + f": A = {a}, B = {b}"
    if partial:
        title += f" (interrupted: {s.games} of {len(run.tasks)} games)"
    table = Table(title=title, title_justify="left")
    # the players are named in the title (which wraps), so that the columns fit 80 characters
    for name in ("player", "wins", "draws", "losses", "score", "marbles won", "marbles lost", "per move"):
        table.add_column(name, justify="left" if name == "player" else "right", no_wrap=name == "per move")
    table.add_row(
        *map(
            _text,
            (
                "A",
                str(s.wins),
                str(s.draws),
                str(s.losses),
                f"{s.points:g}",
                str(s.marbles_won),
                str(s.marbles_lost),
                fmt_seconds(s.move_time_a),
            ),
        )
    )
    table.add_row(
        *map(
            _text,
            (
                "B",
                str(s.losses),
                str(s.draws),
                str(s.wins),
                f"{s.games - s.points:g}",
                str(s.marbles_lost),
                str(s.marbles_won),
                fmt_seconds(s.move_time_b),
            ),
        )
    )
    console.print(table)
    if not s.games:
        return
    score, low, high = s.interval
    elo, elo_low, elo_high = s.elo
    stats = Table(show_header=False, box=None, pad_edge=False)
    stats.add_column(style="bold")
    stats.add_column()

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    stats.add_row(
        _text("score of A"),
        _text(
            f"{pct(score)} ({s.points:g} of {s.games}); 95% interval {_interval_text(low, high, pct)} "
            "(profile likelihood, win/draw/loss)"
        ),
    )
    elo_text = f"{fmt_elo(elo)}; 95% interval {_interval_text(elo_low, elo_high, fmt_elo)}"
    stats.add_row(_text("Elo A - B"), _text(elo_text))
    stats.add_row(
        _text("A by colour"),
        _text(f"as Black {_wdl(s.as_black)}, as White {_wdl(s.as_white)} (wins-draws-losses)"),
    )
    stats.add_row(_text("endings"), _text(_endings_text(s)))
    stats.add_row(_text("game length"), _text(f"{s.average_plies:.1f} plies on average"))
    stats.add_row(_text("settings"), _text(run.settings_text()))
    stats.add_row(_text("stored"), _text(run.stored_text()))
    console.print(stats)


def _wdl(counts: Sequence[int]) -> str:
    return "-".join(str(c) for c in counts)


def _endings_text(s: PairSummary) -> str:
    reasons: Counter = Counter()
    for counter in s.endings.values():
        reasons.update(counter)
    parts = []
    for reason, total in reasons.most_common():
        split = []
        if s.endings["win"][reason]:
            split.append(f"A won {s.endings['win'][reason]}")
        if s.endings["loss"][reason]:
            split.append(f"B won {s.endings['loss'][reason]}")
        if s.endings["draw"][reason]:
            split.append(f"drawn {s.endings['draw'][reason]}")
        parts.append(f"{reason} {total} ({', '.join(split)})")
    return "; ".join(parts)


def print_tournament(console: Console, t: TournamentSummary, run: _Run, partial: bool = False) -> None:
    from rich.table import Table

    n = len(t.players)
    title = f"Tournament {run.run_id or ''}".rstrip() + f": {t.total_games} games"
    if partial:
        title += f" (interrupted: {t.total_games} of {len(run.tasks)})"
    ratings = t.ratings

    def level(i: int) -> tuple[float, ...]:
        """What places player ``i``: its rating (when there are ratings), then its points."""
        points = float(t.standings[i].points)
        return (_sort_key(ratings.elo[i]), points) if ratings is not None else (points,)

    order = sorted(range(n), key=lambda i: (level(i), -i), reverse=True)  # best first; level: entry order
    rank = {}  # the place in this order; players level on rating and points share it
    for place, i in enumerate(order):
        rank[i] = rank[order[place - 1]] if place and level(order[place - 1]) == level(i) else place + 1
    table = Table(title=title, title_justify="left")
    # the numbers never wrap; the player column takes what is left and folds long specs (80 columns).
    # rank, then entry: the player's number in the command line and in the cross table
    for name in ("rank", "entry", "player", "W-D-L", "score", "Elo ± 95%", "marbles +/-", "per move"):
        table.add_column(name, justify="left" if name == "player" else "right", overflow="fold",
                         no_wrap=name != "player")
    for i in order:
        st = t.standings[i]
        elo = fmt_elo(ratings.elo[i]) if ratings is not None else "?"
        err = ratings.error[i] if ratings is not None else math.nan
        table.add_row(
            *map(
                _text,
                (
                    str(rank[i]),
                    str(i + 1),
                    t.players[i],
                    f"{st.wins}-{st.draws}-{st.losses}",
                    f"{st.points:g} ({100 * st.score:.1f}%)" if st.games else "-",
                    elo if math.isnan(err) else f"{elo} ± {err:.0f}",
                    f"{st.marbles_won}/{st.marbles_lost}",
                    fmt_seconds(st.move_time),
                ),
            )
        )
    console.print(table)

    console.print(_text("Cross table: the row player's score against the column player"))
    cross = Table()
    cross.add_column("entry", justify="right")
    cross.add_column("player", overflow="fold")
    for j in range(n):
        cross.add_column(str(j + 1), justify="right")
    for i in range(n):
        cells = []
        for j in range(n):
            if i == j:
                cells.append("")
            elif t.games[i, j]:
                cells.append(f"{t.points[i, j]:g}/{t.games[i, j]:g}")
            else:
                cells.append("-")
        cross.add_row(*map(_text, (str(i + 1), t.players[i], *cells)))
    console.print(cross)

    notes = Table(show_header=False, box=None, pad_edge=False)
    notes.add_column(style="bold")
    notes.add_column()
    if ratings is None:
        notes.add_row(_text("ratings"), _text("not yet: some players have not met, directly or through others"))
    else:
        if ratings.anchor == "first":
            anchor = f"{t.players[0]} is rated 0"
        else:
            anchor = "the mean rating is 0" if ratings.finite else "the mean of the finite ratings is 0"
        text = (
            f"{ratings.method} (Bradley-Terry, draws count half); "
            f"{anchor}; ± is the 95% error bar from the Fisher information"
        )
        notes.add_row(_text("ratings"), _text(text))
        if not ratings.finite:
            ref = ratings.tiers[ratings.reference]
            names = ", ".join(t.players[i] for i in ref)
            notes.add_row(
                _text("unbounded"),
                _text(
                    "some players scored every point against some others, so no finite rating fits them all: "
                    f"finite ratings are from the games among {names}; +inf/-inf mark players who scored all or "
                    "nothing against that group (their tiers, strongest first: "
                    + " > ".join("{" + ", ".join(str(i + 1) for i in tier) + "}" for tier in ratings.tiers)
                    + ")"
                ),
            )
    endings = ", ".join(f"{reason} {k}" for reason, k in t.endings.most_common())
    notes.add_row(_text("endings"), _text(endings or "-"))
    if t.total_games:
        notes.add_row(_text("game length"), _text(f"{t.plies / t.total_games:.1f} plies on average"))
    notes.add_row(_text("settings"), _text(run.settings_text()))
    notes.add_row(_text("stored"), _text(run.stored_text()))
    console.print(notes)


def _sort_key(x: float) -> float:
    return -math.inf if math.isnan(x) else x
