"""The experiment scripts' own machinery: a killed learning run resumes at its last checkpoint with
the same results as an uninterrupted one, and the win-rate intervals widen with run-to-run spread."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sumito.defaults import METHOD_PRESETS
from sumito.games.abalone import Position
from sumito.models.network import ValueNetwork

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import learning_curves as lc
import learning_experiments as experiments
import learning_summary as summary


def job(folder: Path) -> tuple:
    arm = experiments.Arm("tiny", dict(encoding="abalearn2", regime="self", max_plies=30))
    return ("test", arm, 7, {}, (2, 4), folder, ("random",), 2, "td:net={net}")


def test_a_killed_run_resumes_at_its_last_checkpoint_with_the_same_rows(tmp_path, monkeypatch):
    whole = lc.run_arm(job(tmp_path / "whole"))
    calls = []
    real = lc.evaluate

    def dies_at_the_second_checkpoint(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(lc, "evaluate", dies_at_the_second_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        lc.run_arm(job(tmp_path / "killed"))
    assert (tmp_path / "killed" / "trainer.npz").exists() and not (tmp_path / "killed" / "rows.csv").exists()
    monkeypatch.setattr(lc, "evaluate", real)
    resumed = lc.run_arm(job(tmp_path / "killed"))
    def strip(rows: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]

    assert len(whole) == 2 and strip(resumed) == strip(whole)
    # the resumed training is the uninterrupted one, weight for weight
    a, b = (ValueNetwork.load(tmp_path / run / "net-4.npz") for run in ("whole", "killed"))
    assert np.array_equal(a.theta, b.theta)
    assert not (tmp_path / "killed" / "trainer.npz").exists()


def test_win_rate_interval_takes_the_spread_of_the_runs():
    def row(wins: int) -> dict:
        return {"wins": wins, "eval_games": 100}

    even = summary.win_rate([row(50), row(50), row(50)])
    spread = summary.win_rate([row(10), row(50), row(90)])
    assert even[0] == spread[0] == pytest.approx(0.5)
    assert spread[2] - spread[1] > 2 * (even[2] - even[1])
    none = summary.win_rate([row(0)])
    assert none[0] == 0.0 and none[1] == 0.0 and 0.0 < none[2] < 0.05


# ----------------------------------------------------------------------------- the games journal
def test_the_journal_keeps_games_whole_and_replays_them_instead_of_playing(tmp_path):
    from sumito.arena.executor import InlineExecutor
    from sumito.arena.journal import GameJournal, result_from_json, result_to_json
    from sumito.arena.match import ArenaSettings, schedule

    tasks = schedule(["random", "greedy"], 4, ArenaSettings.from_layout("mini", seed=3, opening_plies=2))
    journal = GameJournal(tmp_path / "games.jsonl")
    played = dict(journal.play(InlineExecutor(), tasks[:2]))
    assert all(result_from_json(result_to_json(r)) == r for r in played.values())
    # a kill cuts the last line short: it is skipped, its game played again
    with (tmp_path / "games.jsonl").open("a") as fh:
        fh.write('{"key": "cut short", "res')

    class CountingExecutor(InlineExecutor):
        def __init__(self) -> None:
            super().__init__()
            self.items: list = []

        def run(self, fn, items):
            self.items.extend(items)
            return super().run(fn, items)

    again = GameJournal(tmp_path / "games.jsonl")
    assert len(again) == 2
    counting = CountingExecutor()
    results = dict(again.play(counting, tasks))
    assert counting.items == tasks[2:]  # only the games it lacked
    assert [results[i] for i in range(2)] == [played[0], played[1]]
    assert sorted(results) == [0, 1, 2, 3] and len(GameJournal(tmp_path / "games.jsonl")) == 4


def killed_after(play, games: int):
    """``GameJournal.play`` (``play``) stopped by a Ctrl-C once ``games`` games have come out of it."""
    calls = []

    def killed(self, executor, tasks):
        for item in play(self, executor, tasks):
            calls.append(item)
            if len(calls) == games:
                raise KeyboardInterrupt
            yield item

    return killed


def test_alphalone_tables_resume_after_a_kill_with_the_same_tables(tmp_path, monkeypatch, capsys):
    import alphalone_tables as at

    import sumito.arena.journal as journal

    argv = ["--games", "2", "--baseline-games", "2", "--train-games", "4", "--parts", "base,t1", "--workers", "1"]
    assert at.main([*argv, "--out", str(tmp_path / "whole")]) == 0
    whole = capsys.readouterr().out

    real = journal.GameJournal.play
    monkeypatch.setattr(journal.GameJournal, "play", killed_after(real, 5))
    with pytest.raises(KeyboardInterrupt):
        at.main([*argv, "--out", str(tmp_path / "killed")])
    monkeypatch.setattr(journal.GameJournal, "play", real)
    capsys.readouterr()
    assert len(journal.GameJournal(tmp_path / "killed" / "games.jsonl")) == 5
    trained = sorted(p.name for p in (tmp_path / "killed" / "weights").iterdir())
    assert len(trained) == 8  # four agents, each with its training figures
    assert at.main([*argv, "--out", str(tmp_path / "killed")]) == 0
    resumed = capsys.readouterr().out

    def tables(text: str) -> str:  # the run's length and the weights folder differ
        return "\n".join(line for line in text.splitlines() if "s in all" not in line)

    killed, uninterrupted = str(tmp_path / "killed"), str(tmp_path / "whole")
    assert tables(resumed).replace(killed, "OUT") == tables(whole).replace(uninterrupted, "OUT")


@pytest.mark.slow
def test_alphalone_tables_over_several_training_seeds(tmp_path, monkeypatch, capsys):
    import re

    import alphalone_tables as at

    import sumito.arena.journal as journal

    # a 1 s limit never binds on the mini board: every game is decided by its seed, so a resumed run's are the same
    argv = ["--games", "2", "--time-games", "1", "--baseline-games", "2", "--train-games", "3", "--workers", "1",
            "--limits", "1"]
    whole = tmp_path / "whole"
    assert at.main([*argv, "--out", str(whole)]) == 0
    one = capsys.readouterr()
    # one run: the tables have the documented form (the one-seed tables of docs/results-alphalone.md's hypotheses;
    # its training table is documented over ten seeds, checked below), no IQM
    documented = (Path(__file__).resolve().parent.parent / "docs" / "results-alphalone.md").read_text()

    def heads(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith(("| agent", "| feature", "| White", "| time"))]

    assert len(heads(one.out)) == 5 and all(head in documented for head in heads(one.out)[1:])
    assert "IQM" not in one.out and "runs" not in one.out and "seed 2019," in one.out

    # two runs in the same folder: the first run's agents and games are reused, the second's are new
    assert at.main([*argv, "--seeds", "2", "--out", str(whole)]) == 0
    two = capsys.readouterr()
    assert "43 games" in one.err and "86 games (43 in" in two.err
    assert len(list((whole / "weights").glob("*.train.json"))) == 8  # the seed is in the agents' digest
    assert "seeds 2019–2020" in two.out
    assert len(heads(two.out)) == 5 and all(head in documented for head in heads(two.out))  # as the main run's
    assert "| agent | η | runs | games |" in two.out and "| Agent 1 | 1e-2 | 2 | 12 |" in two.out
    lines = two.out.splitlines()
    base_head = next(line for line in lines if line.startswith("| agent | wins"))
    assert "wins: IQM of the runs" in base_head and base_head.endswith("| runs |")
    base_rows = [line for line in lines if line.startswith("| Agent") and "of 2 |" in line]
    assert len(base_rows) == 4 and all(row.endswith("| 2 |") for row in base_rows)  # 2 runs, 2 games as Black
    t1_rows = [line for line in lines if line.startswith("| Agent") and "plies;" in line]
    assert len(t1_rows) == 4 and all(row.count("; IQM ") == 4 for row in t1_rows)
    assert "Black's wins over each column (16 games each, 2 runs)" in two.out
    t2_head = next(line for line in lines if line.startswith("| time limit"))
    assert t2_head.count("IQM of the runs") == 2 and t2_head.endswith("| runs |")
    assert sum(1 for line in lines if line.startswith(("| None |", "| 1 |")) and line.endswith("| 2 |")) == 2
    # the IQM of the runs' own rates with its bootstrap band, e.g. "50% [0–100]"
    assert re.search(r"\| \d+% \[\d+–\d+\] \| \d+% \[\d+–\d+\] \| \d+% \[\d+–\d+\] of 2 \|", two.out)

    # a killed two-run run resumes with the same tables
    real = journal.GameJournal.play
    monkeypatch.setattr(journal.GameJournal, "play", killed_after(real, 50))  # in the second run
    killed = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):
        at.main([*argv, "--seeds", "2", "--out", str(killed)])
    monkeypatch.setattr(journal.GameJournal, "play", real)
    capsys.readouterr()
    assert len(journal.GameJournal(killed / "games.jsonl")) == 50
    assert at.main([*argv, "--seeds", "2", "--out", str(killed)]) == 0
    resumed = capsys.readouterr()
    assert "86 games (50 in" in resumed.err

    def tables(text: str, folder: Path) -> str:  # the run's length, the moves' times and the folder differ
        text = re.sub(r"\| \d+\.\d\d \|", "| ms |", text.replace(str(folder), "OUT"))
        return "\n".join(line for line in text.splitlines() if "s in all" not in line)

    assert tables(resumed.out, killed) == tables(two.out, whole)


def test_a_diverged_run_is_recorded_as_forfeits_and_the_experiment_goes_on(tmp_path, capsys):
    name, arm, *rest = job(tmp_path / "run")
    wild = experiments.Arm("wild", dict(arm.options, alpha=10.0, lam=1.0))  # W1 past 1e22 within the first game
    rows = lc.run_arm((name, wild, *rest))
    assert [(int(r["games"]), r["diverged"], r["wins"], r["losses"], r["marbles_lost"]) for r in rows] == [
        (2, "2", "0", "2", "12"), (4, "2", "0", "2", "12")]
    assert not list((tmp_path / "run").glob("net-*.npz")) and not (tmp_path / "run" / "trainer.npz").exists()
    assert "diverged by 2 games" in capsys.readouterr().out
    assert lc.run_arm((name, wild, *rest)) == rows  # finished: read back, not trained again
    sound = lc.run_arm(job(tmp_path / "sound"))
    assert all(r["diverged"] == "" for r in sound)
    summary.summarize("test", rows + sound, None, argparse.Namespace(plot=str(tmp_path / "p.png")))
    out = capsys.readouterr().out
    assert "1 of 2 runs diverged" in out and "wild seed 7 by 2 games" in out


def test_a_run_folder_trained_under_another_configuration_is_refused(tmp_path):
    folder = tmp_path / "run"
    lc.run_arm(job(folder))
    assert (folder / "config.json").exists()
    name, arm, *rest = job(folder)
    other = experiments.Arm("tiny", dict(arm.options, output="sigmoid"))
    with pytest.raises(lc.SumitoError, match=r"the arm's output was linear when this run started, not sigmoid"):
        lc.run_arm((name, other, *rest))


def test_table2_distance_is_zero_at_the_papers_numbers_and_grows_away_from_them():
    def runs(rates):
        return np.array([[(round(100 * r), 100) for r in rates]] * 4, dtype=float)

    at_paper = {m: runs(p) for m, p in experiments.TABLE2.items()}
    assert summary.table2_distance(at_paper)[0] == pytest.approx(0.0, abs=1e-12)
    never = {m: runs([0, 0, 0, 0]) for m in experiments.TABLE2}
    expected = sum(p**2 for paper in experiments.TABLE2.values() for p in paper)
    point, low, high = summary.table2_distance(never)
    assert point == pytest.approx(expected) and low == pytest.approx(expected) and high == pytest.approx(expected)
    spread = {m: np.array([[(100 * (k % 2), 100)] * 4 for k in range(4)], dtype=float) for m in experiments.TABLE2}
    point, low, high = summary.table2_distance(spread)
    assert low < point < high  # runs that disagree give the distance an interval


def test_the_training_default_is_the_reading_searchs_closest_cell():
    """The defaults of TrainingConfig are the reading that the committed stage-2 rows of the reading search
    put closest to the paper's Table 2 (docs/reproductions.md); changing either without the other fails."""
    exp = experiments.EXPERIMENTS["readings-grid"]
    root = Path(__file__).resolve().parent.parent / "runs" / "repro" / "readings-grid"
    rows = [row for path in sorted(root.glob("*/rows.csv")) for row in lc.read_rows(path)]
    assert len({(r["arm"], r["seed"]) for r in rows}) == len(exp.arms) * exp.seeds  # the whole grid is committed
    best = summary.grid_distances(rows, exp.checkpoints)[0]
    reading, benchmark = best[3], best[4]
    options = next(a.options for a in exp.arms if a.label == f"Method I(a) | {reading}")
    default = lc.TrainingConfig()
    for name in ("output", "reward_scale", "choice", "hidden"):
        assert getattr(default, name) == options[name], name
    assert benchmark == experiments.DEFAULT_OPPONENTS[0]  # the benchmark the paper's experiments are scored against


def _committed_rows(name: str, seeds: int) -> list[dict]:
    root = Path(__file__).resolve().parent.parent / "runs" / "repro" / name
    rows = [row for path in sorted(root.glob("*/rows.csv")) for row in lc.read_rows(path)]
    return [r for r in rows if int(r["seed"]) < 2003 + seeds]  # the search's own runs, not later re-runs


def test_the_defaults_follow_stage_3_of_the_reading_search():
    """Stage 3's rules on its committed rows (docs/reproductions.md) give the defaults: Methods I and I(a)'s
    split and exploration, the test player and the win column; Method II's output and reward scale. Changing
    a default, or the rows, without the other fails."""
    exp = experiments.EXPERIMENTS["readings-stage3"]
    rows = _committed_rows("readings-stage3", exp.seeds)
    assert len({(r["arm"], r["seed"]) for r in rows}) == len(exp.arms) * exp.seeds  # the whole grid is committed
    best = summary.stage3_distances(rows, exp.checkpoints)[0]
    for preset, method in (("method-I", "Method I"), ("method-Ia", "Method I(a)")):
        options = next(a.options for a in exp.arms if a.label == f"{method} | {best.reading}")
        assert METHOD_PRESETS[preset]["encoding"] == options["encoding"]
    default = lc.TrainingConfig()
    assert default.epsilon_min == options.get("epsilon_min", 0.0)
    assert default.epsilon_schedule == options.get("epsilon_schedule", "game")
    assert best.benchmark in ("td, ahead on marbles", "td:take_wins=yes, ahead on marbles")  # an exact tie
    assert experiments.EXPERIMENTS["table2"].column == experiments.COLUMNS["ahead on marbles"]
    method2 = experiments.EXPERIMENTS["readings-method2"]
    chosen = summary.method2_readings(_committed_rows("readings-method2", method2.seeds))[0]
    options = next(a.options for a in method2.arms if a.label.endswith(f"| {chosen.reading}"))
    assert chosen.claim2 and not chosen.claim1  # κ = 0 loses most; κ = −1 is not among the best
    for name in ("output", "reward_scale"):
        assert METHOD_PRESETS["method-II"][name] == options[name], name


def test_probe_kills_runs_its_cheapest_probe():
    """experiments/probe_kills.py (docs/reliability.md's table of kills) once, on its cheapest probe: the end of
    `sumito engine`'s input during `go infinite`; its row says the probe held."""
    script = Path(__file__).resolve().parent.parent / "experiments" / "probe_kills.py"
    proc = subprocess.run([sys.executable, str(script), "--count", "1", "--kinds", "eof"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| EOF `sumito engine` in go infinite | 1 | 1 | 0 |" in proc.stdout, proc.stdout


def test_fortress_plays_on_from_each_unconverted_game_and_resumes(tmp_path):
    """experiments/fortress.py: the final position of a conversion row that kept its moves is played on by
    the engine given, as the row's A, against the row's opponent; a second run replays the journal."""
    start = "standard"
    pos, moves = Position.start(start), []
    for _ in range(2):  # any legal plies: the script replays them to the row's last position
        moves.append(pos.legal_moves()[0].notation())
        pos = pos.play(moves[-1])
    rows = tmp_path / "rows" / "m.json"
    rows.parent.mkdir()
    rows.write_text(json.dumps(dict(a="x", b="greedy", games=2, seed=1, code="t", rows=[
        dict(index=0, a_colour="white", score=0.5, reason="ply-cap", plies=2, a_pushed=2, a_lost=0,
             start=Position.start(start).to_string(), moves=moves),
        dict(index=1, a_colour="black", score=1, reason="push-off", plies=90, a_pushed=6, a_lost=0)])))
    script = Path(__file__).resolve().parent.parent / "experiments" / "fortress.py"
    spec = "engine:depth=1,nnue=none,threads=1"
    command = [sys.executable, str(script), "--rows", str(rows), "--a", spec, "--judge", spec, "--plies", "6",
               "--workers", "1", "--out", str(tmp_path / "out")]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "  rows/m#0: 0 up, " in first.stdout and ", pushes A 0 B 0  " in first.stdout
    assert pos.to_string().rsplit(" ", 1)[0] + " 1" in first.stdout
    assert f"| `{spec}` | 0 of 1 | 0 | 0 | ply-cap 1 |" in first.stdout, first.stdout
    journal = (tmp_path / "out" / "games.jsonl").read_text().splitlines()
    assert len(journal) == 1 and '"white": "' + spec in journal[0]
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert again.stdout == first.stdout
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 1


def test_fortress_refuses_a_file_that_is_not_a_row_file(tmp_path):
    script = Path(__file__).resolve().parent.parent / "experiments" / "fortress.py"
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    proc = subprocess.run([sys.executable, str(script), "--rows", str(bad), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(f"{bad}: not a row file of experiments/conversion.py "
                                                         "(list indices must be integers or slices, not str)")


def test_a_push_off_by_threats_alone_is_found_within_its_moves_and_a_parry_is_not():
    """experiments/last_marble_budget.py --proof: after e7e6 (a row of tests/data/last_marble.txt, a push-off
    6 plies from the position) White forces it by two threats and not by one; after h7g7 by none."""
    import last_marble_budget

    pos = Position.from_string("5/2bb2/2ww3/1wwwbbb1/2wwbbb2/2ww1b2/7/6/5 b 5 5 135")
    assert last_marble_budget.push_off_by_threats(pos, "e7e6", 2)[0]
    assert not last_marble_budget.push_off_by_threats(pos, "e7e6", 1)[0]
    assert not last_marble_budget.push_off_by_threats(pos, "h7g7", 3)[0]


def test_the_selftaught_curves_of_several_runs_are_drawn_from_their_rated_curves(tmp_path):
    import selftaught_curve as sc

    runs = []
    for k, elo in enumerate((400.0, 600.0)):
        run = tmp_path / f"selftaught-s{k}"
        players = [*sc.ANCHORS, *(f"engine:nnue={sc.net_path(run, g)},threads=1" for g in (0, 1))]
        curve = dict(generations=[0, 1], players=players, games=4, movetime=0.1, seed=30,
                     elo=[100.0 * i for i in range(len(sc.ANCHORS))] + [elo, elo + 200],
                     error=[50.0] * len(players), spent={"0": [0, 0, 0.0], "1": [200, 1, 0.02]})
        (run / "curve").mkdir(parents=True)
        (run / "curve" / "curve.json").write_text(json.dumps(curve))
        runs.append(run)
    sc.overlay(runs, tmp_path / "three.png")
    assert (tmp_path / "three.png").stat().st_size > 10_000
    rerated = json.loads((runs[1] / "curve" / "curve.json").read_text()) | {"prior_draws": 1.0}
    (runs[1] / "curve" / "curve.json").write_text(json.dumps(rerated))
    with pytest.raises(ValueError, match="different priors"):  # one run maximum likelihood, one with a prior
        sc.overlay(runs, tmp_path / "x.png")
    (runs[1] / "curve" / "curve.json").write_text(json.dumps({"generations": [0], "players": []}))
    with pytest.raises(ValueError, match="holds no ratings"):
        sc.overlay(runs, tmp_path / "x.png")
    with pytest.raises(ValueError, match="no curve rated yet"):
        sc.overlay([tmp_path / "nothing"], tmp_path / "x.png")
