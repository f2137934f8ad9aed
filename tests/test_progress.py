"""Progress on stderr: the one reporter, its throttling, and every long command's lines in a log.

Each command family runs a short job with stderr captured (not a terminal) and ``SUMITO_PROGRESS_INTERVAL=0``
(a line at every step), and must print ``label: done/total unit (p%), rate, elapsed, ETA`` lines.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sumito.cli import main
from sumito.errors import SumitoError
from sumito.games.abalone import Game, GameRecord, Position, write_records
from sumito.players import make_player
from sumito.progress import DEFAULT_INTERVAL, INTERVAL_ENV, Progress, clock_text, interval_from_env, rate_text

ROOT = Path(__file__).resolve().parents[1]
#: a plain progress line: label, done/total unit (percent), rate, elapsed, ETA
LINE = re.compile(r"^(?P<label>.+?): (?P<done>[\d,]+)/(?P<total>[\d,]+) (?P<unit>\w+) \(\d+%\), "
                  r"(?:\? \w+/s|[\d.]+ \w+/(?:s|min)), elapsed \d+:\d\d:\d\d, ETA (?:\?|\d+:\d\d:\d\d)")


class FakeClock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def progress_lines(err: str, label: str) -> list[tuple[int, int, str]]:
    """(done, total, unit) of each progress line of ``label`` in ``err``."""
    found = []
    for line in err.splitlines():
        m = LINE.match(line)
        if m and m["label"] == label:
            found.append((int(m["done"].replace(",", "")), int(m["total"].replace(",", "")), m["unit"]))
    return found


@pytest.fixture
def every_step(monkeypatch):
    monkeypatch.setenv(INTERVAL_ENV, "0")


# ------------------------------------------------------------------ the reporter
def test_plain_lines_are_throttled_to_the_interval_and_end_with_the_last_count(capsys):
    clock = FakeClock()
    with Progress("match 7", 10, "games", interval=5.0, terminal=False, clock=clock) as progress:
        for i in range(10):
            clock.t += 2.0  # a game every 2 s: a line after 6 s, 12 s, 18 s, then the last one
            progress.update(advance=1, status=f"A {i}")
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "match 7: 3/10 games (30%), 30 games/min, elapsed 0:00:06, ETA 0:00:14; A 2",
        "match 7: 6/10 games (60%), 30 games/min, elapsed 0:00:12, ETA 0:00:08; A 5",
        "match 7: 9/10 games (90%), 30 games/min, elapsed 0:00:18, ETA 0:00:02; A 8",
        "match 7: 10/10 games (100%), 30 games/min, elapsed 0:00:20, ETA 0:00:00; A 9",
    ]


def test_a_line_comes_every_interval_even_while_no_item_ends(capsys):
    # a slow first game or chunk is not a silence: the heartbeat writes the count every interval
    import time

    with Progress("slow", 3, interval=0.2, terminal=False) as progress:
        time.sleep(0.7)
        progress.update(advance=1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("slow: 0/3 games (0%), ? games/s, elapsed 0:00:00")
    assert sum(line.startswith("slow: 0/3") for line in lines) >= 3
    assert lines[-1].startswith("slow: 1/3 games (33%)")


def test_work_past_its_total_reads_100_percent():
    progress = Progress("ppo", 100, "steps", terminal=False, clock=lambda: 0.0)
    progress.update(122)
    assert "122/100 steps (100%)" in progress.line()


def test_no_repeated_last_line_and_nothing_when_quiet_or_interrupted(capsys):
    clock = FakeClock()
    with Progress("train", 4, interval=0.0, terminal=False, clock=clock) as progress:
        for _ in range(4):
            clock.t += 1.0
            progress.update(advance=1)
    assert [line.split(",")[0] for line in capsys.readouterr().err.splitlines()] == [
        f"train: {k}/4 games ({25 * k}%)" for k in range(1, 5)]  # a line a step; the last is not printed twice
    with Progress("train", 4, quiet=True, interval=0.0, terminal=False, clock=clock) as progress:
        progress.update(2)
    with pytest.raises(KeyboardInterrupt), Progress("train", 4, interval=60.0, terminal=False, clock=clock) as p:
        p.update(2)
        raise KeyboardInterrupt  # the command says where it stopped; no "last" line
    assert capsys.readouterr().err == ""


def test_a_resumed_count_and_a_total_given_late_count_only_new_work(capsys):
    clock = FakeClock()
    # done=None: the first update is the count found done (nnue gen's chunks on disk, a resumed bg run)
    with Progress("nnue gen", unit="chunks", done=None, interval=0.0, terminal=False, clock=clock) as progress:
        progress.update(50, total=100)
        clock.t += 10.0
        progress.update(60)
    first, second = capsys.readouterr().err.splitlines()
    assert first == "nnue gen: 50/100 chunks (50%), ? chunks/s, elapsed 0:00:00, ETA ?"
    assert second == "nnue gen: 60/100 chunks (60%), 1 chunks/s, elapsed 0:00:10, ETA 0:00:40"
    progress = Progress("train", 100, done=40, terminal=False, clock=clock)
    clock.t += 30.0
    progress.update(43)
    assert progress.rate() == pytest.approx(0.1)  # 3 games in 30 s, not 43


def test_a_test_that_may_end_early_gives_its_eta_as_a_most(capsys):
    clock = FakeClock()
    with Progress("sprt", 400, total_is_limit=True, interval=0.0, terminal=False, clock=clock) as progress:
        clock.t += 60.0
        progress.update(20, status="LLR +1.00")
        clock.t += 60.0
        progress.update(40, status="LLR +2.95")  # a bound crossed: the test ends at 40 of 400
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["sprt: 20/400 games (5%), 20 games/min, elapsed 0:01:00, ETA 0:19:00 at most; LLR +1.00",
                     "sprt: 40/400 games (10%), 20 games/min, elapsed 0:02:00, ETA 0:18:00 at most; LLR +2.95"]
    with Progress("sprt", 400, total_is_limit=True, interval=600.0, terminal=False, clock=clock) as progress:
        clock.t += 60.0
        progress.update(40)
    assert capsys.readouterr().err.endswith(", ETA 0:00:00\n")  # over: the last line has nothing left


def test_times_and_rates_in_words():
    assert clock_text(0) == "0:00:00" and clock_text(3725.4) == "1:02:05" and clock_text(90061) == "1d 1:01:01"
    assert clock_text(float("inf")) == "?"
    assert rate_text(143.2, "games") == "143 games/s" and rate_text(2.5, "steps") == "2.5 steps/s"
    assert rate_text(0.5, "games") == "30 games/min" and rate_text(1 / 600, "games") == "0.1 games/min"


def test_the_interval_from_the_environment(monkeypatch, capsys):
    monkeypatch.delenv(INTERVAL_ENV, raising=False)
    assert interval_from_env() == DEFAULT_INTERVAL
    monkeypatch.setenv(INTERVAL_ENV, "2.5")
    assert interval_from_env() == 2.5
    for bad in ("soon", "-1", "nan", "1e9"):
        monkeypatch.setenv(INTERVAL_ENV, bad)
        with pytest.raises(SumitoError, match=INTERVAL_ENV):
            interval_from_env()
    # a command says so in one line
    assert main(["match", "random", "random", "-n", "2", "--layout", "mini", "--no-db", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert INTERVAL_ENV in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ the arena: match, tournament, sprt
def test_match_tournament_and_sprt_print_progress_lines(capsys, every_step):
    mini = ["--layout", "mini", "--no-db", "--workers", "1", "--seed", "1"]
    assert main(["match", "random", "random:seed=2", "-n", "4", *mini]) == 0
    err = capsys.readouterr().err
    assert err.startswith("Match: 4 games on 1 worker(s); mini;")
    assert progress_lines(err, "match") == [(k, 4, "games") for k in range(1, 5)]
    assert re.search(r"^match: 2/4 games \(50%\), .*; A \d+  draws \d+  B \d+$", err, re.M)
    assert main(["match", "random", "random:seed=2", "-n", "4", *mini, "--quiet"]) == 0
    assert capsys.readouterr().err == ""

    assert main(["tournament", "random", "random:seed=2", "random:seed=3", "-n", "2", *mini]) == 0
    assert progress_lines(capsys.readouterr().err, "tournament") == [(k, 6, "games") for k in range(1, 7)]

    assert main(["sprt", "greedy", "random", "--workers", "1", "--max-games", "8", "--fixed"]) == 0
    err = capsys.readouterr().err
    assert progress_lines(err, "sprt") == [(k, 8, "games") for k in (2, 4, 6, 8)]  # a line a pair
    assert "ETA" in err and "LLR" in err


def test_a_resumed_sprt_does_not_count_its_kept_games_in_the_rate(tmp_path, capsys, every_step):
    # the journal gives its games back at once: a rate from them would say thousands of games a second
    sprt = ["sprt", "greedy", "random", "--workers", "1", "--max-games", "8", "--fixed",
            "--journal", str(tmp_path / "games.jsonl")]
    assert main(sprt) == 0
    capsys.readouterr()
    assert main(sprt) == 0  # every game kept: none played, so no rate
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sprt: ")]
    assert lines and all("? games/s" in line for line in lines if LINE.match(line)), lines


# ------------------------------------------------------------------ the lab: train, alphalone-td, nnue
def test_train_and_alphalone_td_print_progress_lines(tmp_path, capsys, every_step):
    out = tmp_path / "run"
    assert main(["train", "--set", "layout=mini", "--set", "max_plies=30", "--games", "3", "--eval-every", "0",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert progress_lines(err, f"train {out}") == [(k, 3, "games") for k in range(1, 4)]
    assert "best eval" in err
    assert main(["train", "--games", "4", "--out", str(out), "--resume", "--quiet"]) == 0
    assert f"train {out}:" not in capsys.readouterr().err

    assert main(["alphalone-td", "--games", "2", "--layout", "mini", "--max-plies", "30", "--out",
                 str(tmp_path / "w.json")]) == 0
    # the code method trains Black's weights, then White's: two runs of two games
    err = capsys.readouterr().err
    assert progress_lines(err, "alphalone-td") == [(k, 4, "games") for k in range(1, 5)]
    assert "\n4 games, 2 for each colour's weights (method code" in err  # the summary counts as the lines do


def test_nnue_gen_and_train_print_progress_lines(tmp_path, capsys, every_step):
    data = tmp_path / "data"
    assert main(["nnue", "gen", "--out", str(data), "--games", "4", "--chunk", "2", "--player", "engine:depth=1",
                 "--max-plies", "60", "--workers", "1"]) == 0
    lines = progress_lines(capsys.readouterr().err, f"nnue gen {data}")
    assert lines[-1] == (2, 2, "chunks") and all(total == 2 for _, total, _ in lines)
    net = tmp_path / "net.npz"
    assert main(["nnue", "train", str(data), "--out", str(net), "--epochs", "2", "--hidden", "4", "--hidden2", "0",
                 "--batch", "16", "--all-positions"]) == 0
    lines = progress_lines(capsys.readouterr().err, f"nnue train {net}")
    assert lines and lines[-1][0] == lines[-1][1] and lines[-1][2] == "batches"
    assert [done for done, _, _ in lines] == list(range(1, lines[-1][1] + 1))


# ------------------------------------------------------------------ backgammon: bg match, bg train
def test_bg_match_and_bg_train_print_progress_lines(tmp_path, capsys, every_step):
    assert main(["bg", "match", "random:seed=1", "pubeval", "-n", "40", "--seed", "3", "--json"]) == 0
    captured = capsys.readouterr()
    assert progress_lines(captured.err, "bg match") == [(20, 40, "games"), (40, 40, "games")]  # chunks of 20
    assert captured.out.lstrip().startswith("{")  # stdout stays the JSON alone

    out = tmp_path / "bg"
    assert main(["bg", "train", "--out", str(out), "-n", "3", "--test-every", "3", "--test-games", "0"]) == 0
    assert progress_lines(capsys.readouterr().err, f"bg train {out}") == [(k, 3, "games") for k in range(4)]
    assert main(["bg", "train", "--out", str(out), "--resume", "-n", "5"]) == 0
    err = capsys.readouterr().err
    # a resumed run: its first line is the count it starts from, with no rate yet
    assert progress_lines(err, f"bg train {out}") == [(k, 5, "games") for k in (3, 4, 5)]
    assert f"bg train {out}: 3/5 games (60%), ? games/s" in err


# ------------------------------------------------------------------ analyse of a game
def test_analyse_of_a_game_prints_progress_lines(tmp_path, capsys, every_step):
    game = Game(Position.start("mini"))
    player = make_player("random:seed=1")
    for _ in range(4):
        game.push(player.choose(game.position))
    path = tmp_path / "game.txt"
    write_records(path, [GameRecord.from_game(game)])
    assert main(["analyse", str(path), "--depth", "1", "--json"]) == 0
    assert progress_lines(capsys.readouterr().err, "analyse") == [(k, 4, "moves") for k in range(1, 5)]


# ------------------------------------------------------------------ the RL example
STUBS = {
    # MaskablePPO as far as the example uses it: learn() steps its callback as stable-baselines3 does
    "sb3_contrib/__init__.py": """
        import numpy as np

        class MaskablePPO:
            def __init__(self, policy=None, env=None, **options):
                self.num_timesteps = 0

            def learn(self, total_timesteps, callback=None):
                callback.init_callback(self)
                while self.num_timesteps < total_timesteps:
                    self.num_timesteps += 1
                    if not callback.on_step():
                        break
                return self

            def save(self, path):
                open(path, "w").write("stub")

            @classmethod
            def load(cls, path, device=None):
                return cls()

            def predict(self, planes, action_masks=None, deterministic=True):
                return int(np.flatnonzero(action_masks)[0]), None
    """,
    "sb3_contrib/common/__init__.py": "",
    "sb3_contrib/common/wrappers.py": """
        def ActionMasker(env, mask):
            return env
    """,
    "torch/__init__.py": """
        def set_num_threads(n):
            pass
    """,
    "stable_baselines3/__init__.py": "",
    "stable_baselines3/common/__init__.py": "",
    "stable_baselines3/common/callbacks.py": """
        class BaseCallback:
            def __init__(self, verbose=0):
                self.model, self.num_timesteps = None, 0

            def init_callback(self, model):
                self.model = model

            def on_step(self):
                self.num_timesteps = self.model.num_timesteps
                return self._on_step()
    """,
}


def test_the_ppo_example_prints_progress_lines(tmp_path):
    stubs = tmp_path / "stubs"
    for name, text in STUBS.items():
        (stubs / name).parent.mkdir(parents=True, exist_ok=True)
        (stubs / name).write_text(textwrap.dedent(text))
    env = {**os.environ, "PYTHONPATH": str(stubs), INTERVAL_ENV: "0"}
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "train_maskable_ppo.py"), "--steps", "5",
                           "--games", "2", "--out", str(tmp_path / "ppo")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert progress_lines(proc.stderr, "MaskablePPO") == [(k, 5, "steps") for k in range(1, 6)]
    model = tmp_path / "ppo" / "model.zip"
    assert progress_lines(proc.stderr, f"ppo:model={model} against random") == [(1, 2, "games"), (2, 2, "games")]
    assert "ppo:model=" in proc.stdout and "against random: won" in proc.stdout
