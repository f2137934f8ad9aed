"""The glance table of docs/reproductions.md ("Every claim at a glance"), computed: each published claim is
data here (the paper's number or direction, the arms, the column, the checkpoints, the committed rows it
rests on), and the verdict rules of that page, with their amendment of 2026-12-01, are applied to the rows.

    python experiments/verdicts.py            # rewrite the table between the page's markers
    python experiments/verdicts.py --check    # exit 1, saying which rows differ, when the page's table is not this

It lives beside the experiments because it reads their rows through their own interval code
(``learning_summary.win_rate``, ``wiering_backgammon.verdict_interval``): the verdict's interval is the one
the experiment printed, not a second copy of it. ``tests/test_verdicts.py`` fails when a label on the page
differs from what this script computes.

**The rules, as applied** (the page states them; this is their arithmetic):

* a claim is a list of *tests*, each true or false on the committed rows: a paper's number inside our 95%
  interval (:class:`Inside`), an arm above another with the intervals apart (:class:`Apart`, also "a curve
  rises": the same arm at two checkpoints), a rate on one side of a level with its interval
  (:class:`Beyond`), intervals that overlap (:class:`Level`, backgammon's "about the same"), deterministic games
  replayed from the paper's own start with its results or scores (:class:`Replayed`, ABLA's six);
* every test holds: **reproduces**; none holds: **does not**; some: **partly** (a subset of its conditions);
* conditions of the claim not run here (``untested``) keep it from *reproduces*;
* the amendment of 2026-12-01: a claim judged under a reading chosen by its closeness to that claim or its
  own table is **fitted**; it earns *reproduces* only when its tests also hold on the seeds the selection never
  saw (``unseen``: from that seed on) and in the outright column; a claim that *chose* its reading is judged
  under the readings it did not choose (its tests name them);
* a claim whose rows are not committed is **not recomputed**: the row gives what the rules make of the numbers
  recorded on the page, with the commit that recorded them, and says that this was not recomputed.

**Modes** (the runs of a cell that fall apart): sorted, the runs' rates in the win column split at the widest
gap between neighbours when that gap is 25 points or more; the runs above it *learned*, and each side is given
as its range and median.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import abla_tables
import alphalone_tables
import learning_summary as summary
import wiering_backgammon as wb

from sumito.arena.ratings import score_interval

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "runs"
PAGE = ROOT / "docs" / "reproductions.md"
BEGIN, END = "<!-- verdicts:begin (experiments/verdicts.py writes this table) -->", "<!-- verdicts:end -->"
MODE_GAP = 0.25  # two runs this far apart (in the win column) split a cell into modes
WIN, OUTRIGHT = "m_wins", "wins"
REPRODUCES, PARTLY, DOES_NOT, NOT_TESTABLE = "reproduces", "partly", "does not", "not testable"


# ---- the committed rows ----------------------------------------------------------------------------------------

@cache
def abalone_rows(folder: str) -> tuple[dict[str, str], ...]:
    """Every row of a learning_curves experiment's committed runs (``runs/FOLDER/*/rows.csv``)."""
    rows = []
    for path in sorted((RUNS / folder).glob("*/rows.csv")):
        with path.open(newline="") as handle:
            rows.extend(csv.DictReader(handle))
    return tuple(rows)


@dataclass(frozen=True)
class Cell:
    rate: float
    low: float
    high: float
    per_run: tuple[float, ...]
    stopped_ahead: float  # the win column's share that is games stopped ahead on marbles (not won outright)


def column_of(kind: str, column: str) -> str:
    """The row field for a test of ``kind`` ('wins' or 'losses') in ``column`` (WIN or OUTRIGHT)."""
    if kind == "losses":
        return "m_losses" if column == WIN else "losses"
    return column


@cache
def cell(folder: str, arm: str, games: int, field_name: str, first_seed: int = 0) -> Cell:
    group = [r for r in abalone_rows(folder)
             if r["arm"] == arm and int(r["games"]) == games and int(r["seed"]) >= first_seed]
    if not group:
        raise SystemExit(f"verdicts: no committed rows for {arm!r} at {games} games in runs/{folder}")
    rate, low, high = summary.win_rate(group, field_name)
    n = sum(int(r["eval_games"]) for r in group)
    ahead = (sum(int(r["m_wins"]) - int(r["wins"]) for r in group) / n) if field_name == WIN else 0.0
    per_run = tuple(int(r[field_name]) / int(r["eval_games"]) for r in sorted(group, key=lambda r: int(r["seed"])))
    return Cell(rate, low, high, per_run, ahead)


@cache
def bg_cells(experiment: str) -> dict[tuple[str, str, int], dict[int, list[dict[str, str]]]]:
    """wiering_backgammon's committed curves (``runs/bg-seeds/EXPERIMENT/ARM-sSEED/curve.csv``) by cell."""
    cells: dict[tuple[str, str, int], dict[int, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted((RUNS / "bg-seeds" / experiment).glob("*/curve.csv")):
        arm, seed = path.parent.name.rsplit("-s", 1)
        with path.open(newline="") as handle:
            for r in csv.DictReader(handle):
                cells[(arm, r["opponent"], int(r["games"]))][int(seed)].append(r)
    return cells


@cache
def abla_games(folder: str) -> dict[tuple[str, str], tuple[str, int, int]]:
    """abla_tables.py's committed games (``runs/FOLDER/games.jsonl``) by (first player, second player), each
    player named as the paper names it ("Combined 4-ply"): (the result: a draw or the winner's name, the
    marbles the first player pushed off, the marbles the second pushed off)."""
    games = {}
    for g in abla_tables.journal_games(RUNS / folder / "games.jsonl"):
        first, second = abla_tables.label(g.black), abla_tables.label(g.white)
        result = {"1-0": first, "0-1": second}.get(g.result, "draw")
        games[(first, second)] = (result, g.lost_white, g.lost_black)
    return games


def bg_cell(experiment: str, arm: str, games: int, opponent: str = "gnubg:ply=0") -> tuple[float, float, int]:
    runs = bg_cells(experiment).get((arm, opponent, games))
    if not runs:
        raise SystemExit(f"verdicts: no committed curve for {arm!r} at {games} games in runs/bg-seeds/{experiment}")
    equity, half, _ = wb.verdict_interval(runs)
    return equity, half, len(runs)


# ---- the tests ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ctx:
    column: str = WIN
    first_seed: int = 0


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def span(c: Cell) -> str:
    return f"{pct(c.rate)} ({pct(c.low)}–{pct(c.high)})"


@dataclass(frozen=True)
class Inside:
    """The paper's number lies inside our interval."""

    folder: str
    arm: str
    games: int
    paper: float
    kind: str = "wins"

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        c = cell(self.folder, self.arm, self.games, column_of(self.kind, ctx.column), ctx.first_seed)
        held = c.low <= self.paper <= c.high
        where = "inside" if held else "outside"
        return held, f"{self.arm} {self.games:,}: the paper's {self.paper:.0%} {where} {span(c)}"


@dataclass(frozen=True)
class Apart:
    """Arm ``a`` (at ``games``) above arm ``b`` (at ``games_b``, default the same), the intervals apart; an arm
    at zero (its interval reaching 0) holds no direction about learning."""

    folder: str
    a: str
    b: str
    games: int
    games_b: int = 0
    label: str = ""

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        gb = self.games_b or self.games
        ca = cell(self.folder, self.a, self.games, ctx.column, ctx.first_seed)
        cb = cell(self.folder, self.b, gb, ctx.column, ctx.first_seed)
        held = ca.low > cb.high and ca.low > 0
        where = f"{self.a} {self.games:,} over {self.b} {gb:,}" if self.a != self.b else \
            f"{self.a} rises {gb:,} → {self.games:,}"
        apart = "apart" if held else "not apart above"
        return held, f"{self.label or where}: {pct(ca.rate)} vs {pct(cb.rate)}, {apart}"


@dataclass(frozen=True)
class Beyond:
    """A rate's interval lies wholly above (``above``) or below a level."""

    folder: str
    arm: str
    games: int
    level: float
    above: bool
    kind: str = "wins"
    label: str = ""

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        c = cell(self.folder, self.arm, self.games, column_of(self.kind, ctx.column), ctx.first_seed)
        held = c.low > self.level if self.above else c.high < self.level
        side = "above" if self.above else "below"
        what = "lost" if self.kind == "losses" else "won"
        return held, (f"{self.label or self.arm} {self.games:,}: {what} {span(c)}, "
                      f"{'' if held else 'not '}{side} {self.level:.0%}")


@dataclass(frozen=True)
class BgApart:
    """Backgammon: arm ``a``'s equity against gnubg above ``b``'s, the intervals apart."""

    experiment: str
    a: str
    b: str
    games: int

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        ea, ha, _ = bg_cell(self.experiment, self.a, self.games)
        eb, hb, _ = bg_cell(self.experiment, self.b, self.games)
        held = ea - ha > eb + hb
        apart = "apart" if held else "not apart"
        return held, f"{self.a} over {self.b} at {self.games:,}: {ea:+.2f} vs {eb:+.2f}, {apart}"


@dataclass(frozen=True)
class BgLevel:
    """Backgammon: the arms' equity intervals overlap pairwise at ``games`` (read as "about the same")."""

    experiment: str
    arms: tuple[str, ...]
    games: int

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        cells = [bg_cell(self.experiment, arm, self.games) for arm in self.arms]
        held = all(e1 - h1 <= e2 + h2 and e2 - h2 <= e1 + h1 for i, (e1, h1, _) in enumerate(cells)
                   for (e2, h2, _) in cells[i + 1:])
        shown = ", ".join(f"{e:+.2f} ± {h:.2f}" for e, h, _ in cells)
        return held, f"{' / '.join(self.arms)} at {self.games:,}: {shown}, {'overlapping' if held else 'apart'}"


@dataclass(frozen=True)
class Replayed:
    """Deterministic games replayed from the paper's own start: each game's result (``scores`` False) or its
    score in marbles pushed off (``scores`` True) as the paper's. ``games``: (first player, second player, the
    paper's result: "draw" or the winner, the paper's score first–second)."""

    folder: str
    games: tuple[tuple[str, str, str, str], ...]
    scores: bool = False

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        played = abla_games(self.folder)
        ours = [played[(first, second)] for first, second, _, _ in self.games]
        if self.scores:
            shown = [f"{a}–{b}" for _, a, b in ours]
            same = [s == paper for s, (*_, paper) in zip(shown, self.games)]
            return all(same), f"the scores {', '.join(shown)}: {sum(same)} of {len(same)} as published"
        same = [result == paper for (result, _, _), (_, _, paper, _) in zip(ours, self.games)]
        return all(same), f"the results: {sum(same)} of {len(same)} as published"


@cache
def abla_groups(folder: str) -> dict[str, list[int]]:
    """abla_tables.py's Table 2 groups over the committed games (``runs/FOLDER/games.jsonl``): games, wins,
    losses, draws, marbles for, against (``abla_tables.tally``)."""
    return dict(abla_tables.tally(abla_tables.journal_games(RUNS / folder / "games.jsonl"))[1])


@dataclass(frozen=True)
class GroupScore:
    """ABLA's Table 2: a group's score over the games between the groups (a draw half a point) apart above
    50% (``above``) or below it, its 95% interval by the arena's ``score_interval``."""

    folder: str
    group: str
    label: str
    above: bool = True

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        groups = abla_groups(self.folder)
        if self.group not in groups:
            raise SystemExit(f"verdicts: no committed games of the {self.group} group in runs/{self.folder}")
        n, wins, losses, draws, _, _ = groups[self.group]
        score, low, high = score_interval(wins, draws, losses)
        held = low > 0.5 if self.above else high < 0.5
        where = "apart above 50%" if low > 0.5 else "apart below 50%: reversed" if high < 0.5 else \
            "not apart from 50%"
        return held, (f"{n} games from random openings: {self.label} scores {score:.0%} ({low:.0%}–{high:.0%}), "
                      f"{wins}–{draws}–{losses}, {where}")


@cache
def alphalone_cells(folder: str) -> dict[tuple[str, str], list[dict[str, int]]]:
    """alphalone_tables.py's committed counts (``runs/FOLDER/cells.csv``), by (part, cell), a row a run."""
    path = RUNS / folder / "cells.csv"
    if not path.exists():
        raise SystemExit(f"verdicts: no committed counts in {path.relative_to(ROOT)}")
    return alphalone_tables.read_cells(path)


def alphalone_share(folder: str, part: str, cells: tuple[str, ...], side: str, count: str) -> tuple[int, int]:
    """The first player's ``count`` ('wins' or 'losses') as ``side`` ('black' or 'white') over ``cells`` of
    ``part``, pooled over the runs: (count, games)."""
    found = alphalone_cells(folder)
    hit = games = 0
    for c in cells:
        if (part, c) not in found:
            raise SystemExit(f"verdicts: no committed cell {part} {c} in runs/{folder}/cells.csv")
        for run in found[(part, c)]:
            hit += run[f"{side}_{count}"]
            games += sum(run[f"{side}_{k}"] for k in ("wins", "draws", "losses"))
    return hit, games


@dataclass(frozen=True)
class Share:
    """Alphalone: a pooled share of games (:func:`alphalone_share`), outright (a draw is not a win), with its 95%
    interval (``alphalone_tables.rate``'s): the paper's number inside it (``paper``), or above another share
    with the intervals apart (``other``: its cells)."""

    folder: str
    part: str
    cells: tuple[str, ...]
    label: str
    side: str = "black"
    count: str = "wins"
    paper: float | None = None
    other: tuple[str, ...] = ()
    other_label: str = ""

    def interval(self, cells: tuple[str, ...]) -> tuple[float, float, float]:
        hit, games = alphalone_share(self.folder, self.part, cells, self.side, self.count)
        _, low, high = score_interval(hit, 0, games - hit)
        return hit / games, low, high

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        rate, low, high = self.interval(self.cells)
        shown = f"{pct(rate)} ({pct(low)}–{pct(high)})"
        if self.paper is not None:
            held = low <= self.paper <= high
            return held, f"{self.label} {shown}: the paper's {self.paper:.0%} {'inside' if held else 'outside'}"
        o_rate, _, o_high = self.interval(self.other)
        held = low > o_high
        return held, (f"{self.label} {shown} over {self.other_label} {pct(o_rate)}: "
                      f"{'apart' if held else 'not apart above'}")


@dataclass(frozen=True)
class Recorded:
    """A test read off numbers recorded on the page (no rows committed)."""

    text: str
    held: bool

    def __call__(self, ctx: Ctx) -> tuple[bool, str]:
        return self.held, self.text


# ---- a claim and its verdict -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shown:
    """A cell the row shows, in the win column and outright side by side (with its runs' modes)."""

    folder: str
    arm: str
    games: int
    label: str = ""


@dataclass(frozen=True)
class Claim:
    paper: str
    where: str
    claim: str
    number: str
    tests: tuple
    command: str
    shown: tuple[Shown, ...] = ()
    ours: str = ""  # what the row shows where it is not Abalone cells (backgammon, recorded numbers)
    fitted: str = ""  # the reading chosen by closeness to this claim or its table: how
    chose: str = ""  # this claim chose its reading: which one (its tests are under the others)
    unseen: int = 0  # the first seed the selection never saw (fitted claims)
    untested: str = ""  # conditions of the claim not run here
    recorded: str = ""  # no rows committed: where the numbers were recorded
    note: str = ""  # what the numbers alone do not say


@dataclass(frozen=True)
class Verdict:
    label: str
    marks: tuple[str, ...]
    why: tuple[str, ...]


def combine(results: list[tuple[bool, str]]) -> str:
    held = sum(ok for ok, _ in results)
    return REPRODUCES if held == len(results) else DOES_NOT if held == 0 else PARTLY


def judge(claim: Claim) -> Verdict:
    """The verdict rules (with the amendment of 2026-12-01) applied to the claim's committed rows."""
    if not claim.tests:
        return Verdict(NOT_TESTABLE, (), (claim.untested,))
    results = [test(Ctx()) for test in claim.tests]
    label = combine(results)
    why = [("✓ " if ok else "✗ ") + text for ok, text in results]
    marks: list[str] = []
    if claim.untested and label == REPRODUCES:
        label = PARTLY
    if claim.untested:
        why.append(f"not run here: {claim.untested}")
    if claim.fitted or claim.chose:
        marks.append("fitted")
    if claim.fitted and not claim.recorded:
        outright = combine([test(Ctx(OUTRIGHT)) for test in claim.tests])
        unseen = combine([test(Ctx(WIN, claim.unseen)) for test in claim.tests]) if claim.unseen else label
        why.append(f"outright: {outright}; on the seeds from {claim.unseen}, which the selection never saw: {unseen}")
        if label == REPRODUCES and (outright != REPRODUCES or unseen != REPRODUCES):
            label = PARTLY
    if claim.recorded:
        marks.append("not recomputed")
    return Verdict(label, tuple(marks), tuple(why))


def modes(per_run: tuple[float, ...]) -> str:
    """The runs' modes by the stated rule (a gap of MODE_GAP or more between sorted neighbours), or ''."""
    x = sorted(per_run)
    if len(x) < 2:
        return ""
    gaps = np.diff(x)
    i = int(np.argmax(gaps))
    if gaps[i] < MODE_GAP:
        return ""
    low, high = x[: i + 1], x[i + 1:]

    def side(v: list[float]) -> str:
        return f"{pct(v[0])}–{pct(v[-1])}, median {pct(float(np.median(v)))}" if len(v) > 1 else pct(v[0])

    return f"{len(high)} of {len(x)} runs learned ({side(high)}); {len(low)} at {side(low)}"


def shown_text(claim: Claim) -> tuple[str, str, str]:
    """(the win column, outright, the runs and their modes) of the claim's shown cells."""
    if not claim.shown:
        return claim.ours, "—", ""
    wins, outright, runs = [], [], []
    for s in claim.shown:
        name = s.label or f"{s.arm} {s.games:,}"
        c, o = cell(s.folder, s.arm, s.games, WIN), cell(s.folder, s.arm, s.games, OUTRIGHT)
        ahead = f", {pct(c.stopped_ahead)} of it stopped ahead" if c.stopped_ahead >= 0.05 else ""
        wins.append(f"{name}: {span(c)}{ahead}")
        outright.append(f"{name}: {span(o)}")
        split = modes(c.per_run)
        runs.append(f"{name}: {len(c.per_run)} runs" + (f"; {split}" if split else ""))
    return "; ".join(wins), "; ".join(outright), "; ".join(runs)


def numbers_of(text: str) -> str:
    """A test's text without its closing verdict (": the paper's 50% outside", ": not apart above")."""
    head, _, tail = text.rpartition(": ")
    return head if head and tail.startswith(("the paper's", "apart", "not apart")) else text


def row(claim: Claim) -> str:
    v = judge(claim)
    wins, outright, runs = shown_text(claim)
    if not claim.shown and not claim.ours:  # no cells to show: the numbers its tests computed (their verdicts
        wins = "; ".join(numbers_of(text[2:]) for text in v.why)  # are in the why column)
    label = f"**{v.label}**" + "".join(f" *{m}*" for m in v.marks)
    why = "; ".join(v.why)
    extra = [t for t in (claim.fitted and f"fitted: {claim.fitted}",
                         claim.chose and f"chose its reading: {claim.chose}",
                         claim.recorded and f"not recomputed: {claim.recorded}", claim.note) if t]
    cells = [claim.paper, claim.where, claim.claim, claim.number, wins, outright, runs, label,
             why + ("" if not extra else ". " + ". ".join(extra)), claim.command]
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


HEADER = ("| paper | table/figure | claim | paper's number | ours, won or ahead on marbles (95% interval) | "
          "ours, won outright (95% interval) | runs (modes) | verdict | why (each test, computed) | command; rows |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def table() -> str:
    from verdict_claims import CLAIMS  # the claims as data (a module of its own: the data, not the rules)

    return "\n".join([HEADER, *(row(c) for c in CLAIMS)])


def page_with_table(text: str, body: str) -> str:
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise SystemExit(f"verdicts: {PAGE.relative_to(ROOT)} has no {BEGIN} ... {END} markers")
    return text[: start + len(BEGIN)] + "\n" + body + "\n" + text[stop:]


def labels(text: str) -> list[tuple[str, str]]:
    """(claim, verdict) of every row between the markers of a page's text."""
    start, stop = text.find(BEGIN), text.find(END)
    rows = [line for line in text[start:stop].splitlines() if line.startswith("| ") and not line.startswith("| paper")]
    out = []
    for line in rows:
        parts = [p.strip() for p in line.replace("\\|", "\x00").split("|")[1:-1]]
        out.append((parts[2].replace("\x00", "|"), parts[7].replace("\x00", "|")))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare the page's table with this script's; exit 1 "
                        "when they differ")
    parser.add_argument("--page", default=str(PAGE), help="the page (default docs/reproductions.md)")
    args = parser.parse_args(argv)
    page = Path(args.page)
    text = page.read_text(encoding="utf-8")
    new = page_with_table(text, table())
    if args.check:
        if new == text:
            print(f"{page}: every row as computed")
            return 0
        ours, theirs = labels(new), labels(text)
        for (claim, label), (_, written) in zip(ours, theirs):
            if label != written:
                print(f"{claim}: the page says {written}, the rules give {label}")
        print(f"{page}: the table differs from experiments/verdicts.py's; run it to rewrite the table")
        return 1
    page.write_text(new, encoding="utf-8")
    print(f"{page}: {len(labels(new))} rows written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
