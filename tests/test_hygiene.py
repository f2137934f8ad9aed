"""Process hygiene: the suite's own home folder; workers die with their parent, ``--workers`` is capped, a killed run is
marked interrupted in the archive, ``bg train`` checkpoints every N games and on Ctrl-C and resumes exactly,
and the temporary files a kill leaves are removed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sumito.arena.db import GameArchive
from sumito.arena.executor import InlineExecutor, ProcessExecutor, make_executor
from sumito.arena.match import ArenaSettings
from sumito.cli import arena as arena_commands
from sumito.cli import backgammon as bg_commands
from sumito.cli import main
from sumito.fileio import process_alive, process_started, remove_stale_temps
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig, TrainingInterrupted
from sumito.models.backgammon.modular import ModularTrainer, ModularValue
from sumito.procs import MAX_WORKERS

LINUX = sys.platform.startswith("linux")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ helpers: processes
def children_of(pid: int) -> dict[int, str | None]:
    """The live child processes of ``pid`` (from /proc) with their start times."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = fields[19]
    return found


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def start(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sumito", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
        start_new_session=True,  # so that the finally below can kill whatever is left, by group
        # a shell's background job inherits SIGINT ignored: give the command a terminal's default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for(condition, seconds: float, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def assert_all_gone(workers: dict[int, str | None], seconds: float = 10.0) -> None:
    """Every one of ``workers`` (pid -> start time) has ended; a zombie awaiting its reaper counts as ended."""
    assert wait_for(lambda: not any(process_alive(pid, t) for pid, t in workers.items()), seconds), (
        f"orphan workers left running: {[pid for pid, t in workers.items() if process_alive(pid, t)]}"
    )


def stored_games(db: Path) -> int:
    if not db.exists():
        return 0
    with contextlib.suppress(sqlite3.Error), contextlib.closing(
        sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
    ) as conn:
        return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    return 0


# ------------------------------------------------------------------ kill -9 leaves nothing behind
@pytest.mark.skipif(not LINUX, reason="finds the workers through /proc")
def test_kill_9_of_a_match_leaves_no_workers_and_the_run_is_shown_interrupted(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    argv = ["match", "random", "random", "-n", "20000", "--layout", "small", "--max-plies", "2000"]
    argv += ["--repetitions", "0", "--workers", "2", "--db", str(db), "--seed", "1", "--quiet"]
    proc = start(argv)
    try:
        assert wait_for(lambda: len(children_of(proc.pid)) >= 2 and stored_games(db) >= 1, 90, proc), (
            f"the match did not get going: {proc.poll()} {proc.stderr.read() if proc.poll() is not None else ''}"
        )
        workers = children_of(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert_all_gone(workers)
    finally:
        kill_group(proc)

    with GameArchive(db, create=False) as archive:  # read-only: reports the run as it is, marks nothing
        (shown,) = archive.runs()
        assert shown.status == "interrupted" and shown.games_stored >= 1
        assert archive.conn.execute("SELECT status FROM runs").fetchone()[0] == "running"
    code, out, _ = run(capsys, "games", "runs", "--db", db)
    assert code == 0 and "interrupted" in out and "running" not in out
    with GameArchive(db) as archive:  # the next writable open marks it for good
        status, ended, started = archive.conn.execute("SELECT status, ended, started FROM runs").fetchone()
        last_game = archive.conn.execute("SELECT max(finished) FROM games").fetchone()[0]
        assert archive.conn.execute("SELECT count(*) FROM run_owners").fetchone()[0] == 0
    assert status == "interrupted" and ended == last_game and ended >= started


@pytest.mark.skipif(not LINUX, reason="finds the workers through /proc")
def test_kill_9_of_a_bg_match_leaves_no_workers(tmp_path):
    proc = start(["bg", "match", "pubeval", "pubeval", "-n", "100000", "--workers", "2", "--seed", "1"])
    try:
        assert wait_for(lambda: len(children_of(proc.pid)) >= 2, 60, proc), "the workers did not start"
        workers = children_of(proc.pid)
        time.sleep(0.5)  # let them get into their games
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert_all_gone(workers)
    finally:
        kill_group(proc)


def sleeper(x: float) -> float:
    time.sleep(x)
    return x


@pytest.mark.skipif(not LINUX, reason="finds the workers through /proc")
def test_executor_workers_die_with_their_parent(tmp_path):
    # a parent that starts a pool of two busy workers, says so, and waits to be killed
    script = (
        "import sys, time\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from test_hygiene import sleeper\n"
        "from sumito.arena.executor import ProcessExecutor\n"
        "stream = ProcessExecutor(2).run(sleeper, [0.01, 600, 600])\n"
        "next(stream)\n"
        "print('ready', flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(Path(__file__).parent)], stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        workers = children_of(proc.pid)
        assert len(workers) == 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert_all_gone(workers)
    finally:
        kill_group(proc)


# ------------------------------------------------------------------ --workers is capped
def test_workers_are_capped_with_a_message(capsys, monkeypatch):
    asked = []

    def factory(workers):
        asked.append(workers)
        return InlineExecutor()

    monkeypatch.setattr(arena_commands, "executor_factory", factory)
    code, _, err = run(capsys, "match", "random", "random", "-n", 2, "--layout", "mini", "--no-db", "--workers", 1000)
    assert code == 0 and asked == [MAX_WORKERS]
    assert f"--workers 1000 is more than this machine's cap; using {MAX_WORKERS}" in err
    code, _, err = run(capsys, "tournament", "random", "random:seed=2", "random:seed=3", "-n", 1, "--layout", "mini",
                       "--no-db", "--workers", 5000)
    assert code == 0 and asked[-1] == MAX_WORKERS and "--workers 5000" in err
    code, _, err = run(capsys, "match", "random", "random", "-n", 2, "--layout", "mini", "--no-db", "--workers", 2)
    assert code == 0 and asked[-1] == 2 and "cap" not in err  # within the cap: no note

    assert ProcessExecutor(1000).workers == MAX_WORKERS
    assert make_executor(10**6).workers == MAX_WORKERS


def test_bg_match_workers_are_capped(capsys, monkeypatch):
    asked = []

    def fake_run_match(spec1, spec2, games, seed, workers=1, progress=None):
        asked.append(workers)
        return [1] * games

    monkeypatch.setattr(bg_commands, "run_match", fake_run_match)
    code, _, err = run(capsys, "bg", "match", "pubeval", "pubeval", "-n", 4, "--workers", 1000, "--json")
    assert code == 0 and asked == [MAX_WORKERS] and "--workers 1000" in err


def test_train_workers_are_capped(capsys, tmp_path):
    code, _, err = run(capsys, "train", "--games", 0, "--out", tmp_path / "t", "--workers", 1000, "--quiet")
    assert code == 0 and f"using {MAX_WORKERS}" in err
    code, _, err = run(capsys, "train", "--games", 0, "--out", tmp_path / "u", "--workers", 0)
    assert code == 2 and "argument --workers: the value must be from 1" in err


# ------------------------------------------------------------------ the archive knows a killed run
def test_a_run_whose_process_is_gone_is_marked_interrupted(tmp_path):
    db = tmp_path / "games.sqlite"
    settings = ArenaSettings.from_layout("mini")
    with GameArchive(db) as archive:
        mine = archive.start_run("match", ["a", "b"], 2, 2, settings)
        dead = archive.start_run("match", ["a", "b"], 2, 2, settings)
        reused = archive.start_run("match", ["a", "b"], 2, 2, settings)
        rebooted = archive.start_run("match", ["a", "b"], 2, 2, settings)
        elsewhere = archive.start_run("match", ["a", "b"], 2, 2, settings)
        done = archive.start_run("match", ["a", "b"], 2, 2, settings)
        archive.end_run(done, "finished")
        conn = archive.conn
        with conn:
            conn.execute("UPDATE run_owners SET pid = ? WHERE run_id = ?", (dead_pid(), dead))
            # our pid, but a process that started at another time: the pid was reused
            conn.execute("UPDATE run_owners SET pid_start = 'x' WHERE run_id = ?", (reused,))
            conn.execute("UPDATE run_owners SET boot_id = 'another boot' WHERE run_id = ?", (rebooted,))
            conn.execute("UPDATE run_owners SET host = 'another host', pid = ? WHERE run_id = ?",
                         (dead_pid(), elsewhere))
        assert archive.conn.execute("SELECT count(*) FROM run_owners").fetchone()[0] == 5  # not the finished one
    gone = {dead, reused, rebooted} if LINUX else {dead}
    with GameArchive(db, create=False) as archive:
        shown = {r.id: r.status for r in archive.runs()}
    assert shown == {
        mine: "running",
        **dict.fromkeys(gone, "interrupted"),
        **{r: "running" for r in {reused, rebooted} - gone},
        elsewhere: "running",  # another machine's process: we cannot tell, so we do not guess
        done: "finished",
    }
    with GameArchive(db) as archive:
        stored = dict(archive.conn.execute("SELECT id, status FROM runs").fetchall())
        ended = dict(archive.conn.execute("SELECT id, ended FROM runs").fetchall())
    assert stored == shown
    assert all(ended[r] is not None for r in gone) and ended[mine] is None


def test_an_archive_from_before_run_owners_still_opens(tmp_path):
    db = tmp_path / "games.sqlite"
    settings = ArenaSettings.from_layout("mini")
    with GameArchive(db) as archive:
        run_id = archive.start_run("match", ["a", "b"], 2, 2, settings)
        archive.conn.executescript("DROP TABLE run_owners;")  # as a file written by an older Sumito
    with GameArchive(db, create=False) as archive:
        assert [r.status for r in archive.runs()] == ["running"]  # no owner known: left as it is
    with GameArchive(db) as archive:
        archive.end_run(run_id, "finished")
        assert archive.conn.execute("SELECT count(*) FROM run_owners").fetchone()[0] == 0
        assert [r.status for r in archive.runs(ids=[run_id])] == ["finished"]


def test_games_runs_command(capsys, tmp_path):
    db = tmp_path / "g.sqlite"
    code, _, _ = run(capsys, "match", "random", "random", "-n", 2, "--layout", "mini", "--db", db, "--seed", 1)
    assert code == 0
    code, out, _ = run(capsys, "games", "runs", "--db", db)
    assert code == 0 and "match 1" in out and "finished" in out and "2/2" in out
    code, _, err = run(capsys, "games", "runs", "--db", db, "--run", 7)
    assert code == 2 and "no run 7" in err
    code, _, err = run(capsys, "games", "runs", "--db", db, "--player", "x")
    assert code == 2 and "only --db, --run and --limit" in err


# ------------------------------------------------------------------ stale temporary files
def test_stale_temps_are_removed_and_live_ones_kept(tmp_path):
    old = time.time() - 3600
    recent = time.time() - 10

    def make(name: str, mtime: float) -> Path:
        path = tmp_path / name
        path.write_bytes(b"x")
        os.utime(path, (mtime, mtime))
        return path

    gone_writer = make(f".checkpoint.npz.pid{dead_pid()}.ab_cd123.tmp", recent)
    live_writer = make(f".checkpoint.npz.pid{os.getpid()}.k2j3h4g5.tmp", recent)
    live_but_old = make(f".curve.csv.pid{os.getpid()}.zzzzzzzz.tmp", old)
    legacy_old = make(".best.npz.abcdefgh.tmp", old)
    legacy_recent = make(".best.json.abcdefgh.tmp", recent)
    just_written = make(f".config.json.pid{dead_pid()}.qwertyui.tmp", time.time())
    others = [make(name, old) for name in (".notes.tmp", "data.abcdefgh.tmp", ".x.ABCDEFGH.tmp", "checkpoint.npz")]
    folder = tmp_path / ".dir.abcdefgh.tmp"
    folder.mkdir()
    os.utime(folder, (old, old))

    removed = remove_stale_temps(tmp_path)
    assert sorted(removed) == sorted([gone_writer, live_but_old, legacy_old])
    for path in (live_writer, legacy_recent, just_written, *others, folder):
        assert path.exists()
    assert remove_stale_temps(tmp_path / "missing") == []


def test_process_identity():
    me = os.getpid()
    assert process_alive(me) and process_alive(me, process_started(me))
    assert not process_alive(dead_pid())
    assert not process_alive(0) and not process_alive(2**40)
    if LINUX:
        assert process_started(me) is not None and not process_alive(me, "0")


# ------------------------------------------------------------------ bg train: checkpoints and Ctrl-C
def small_config(**changes) -> BackgammonRunConfig:
    settings = dict(encoding="tesauro198", alpha=0.1, games=24, test_every=12, test_games=4,
                    test_against=("pubeval",), seed=5)
    settings.update(changes)
    return BackgammonRunConfig(**settings)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """An uninterrupted run: its curve rows and its final network."""
    folder = tmp_path_factory.mktemp("straight") / "r"
    rows = BackgammonRun(folder, small_config()).run()
    return [_normal(r) for r in rows], ModularValue.load(folder / "network.npz")


def _normal(row) -> dict:
    return {k: (v if k == "opponent" else float(v)) for k, v in row.items() if k != "train_seconds"}


def _same_as_straight(folder: Path, rows, straight) -> None:
    rows_straight, net = straight
    assert [_normal(r) for r in rows] == rows_straight
    for x, y in zip(ModularValue.load(folder / "network.npz").networks, net.networks):
        np.testing.assert_array_equal(x.theta, y.theta)


def _checkpoint_games(folder: Path) -> int:
    trainer, _ = ModularTrainer.load_checkpoint(folder / "checkpoint.npz")
    return trainer.games


def test_bg_run_checkpoints_every_n_games(tmp_path, monkeypatch, straight):
    saves = []
    original = ModularTrainer.save_checkpoint

    def recording(self, path, extra=None):
        saves.append(self.games)
        original(self, path, extra)

    monkeypatch.setattr(ModularTrainer, "save_checkpoint", recording)
    rows = BackgammonRun(tmp_path / "r", small_config(), checkpoint_every=5).run()
    assert saves == [5, 10, 12, 15, 20, 24]  # every 5 games and at every test point
    _same_as_straight(tmp_path / "r", rows, straight)


@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler, whoever runs the tests (a background job starts with SIGINT ignored)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def interrupt_at(monkeypatch, game: int, times: int = 1) -> None:
    """Press Ctrl-C ``times`` times while training game ``game`` (from 1) is played."""
    original = ModularTrainer.play_game

    def play_game(self):
        if self.games + 1 == game:
            for _ in range(times):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.01)  # the handler runs here
        return original(self)

    monkeypatch.setattr(ModularTrainer, "play_game", play_game)


def test_ctrl_c_finishes_the_game_saves_and_resumes_exactly(tmp_path, monkeypatch, straight, ctrl_c):
    folder = tmp_path / "r"
    interrupt_at(monkeypatch, 7)
    with pytest.raises(TrainingInterrupted) as stop:
        BackgammonRun(folder, small_config(), checkpoint_every=5).run()
    assert (stop.value.games, stop.value.saved) == (7, True)  # game 7 was played to its end, then saved
    assert _checkpoint_games(folder) == 7
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is put back
    monkeypatch.undo()
    _same_as_straight(folder, BackgammonRun(folder, resume=True).run(), straight)


def test_a_second_ctrl_c_stops_at_once_and_the_last_checkpoint_stands(tmp_path, monkeypatch, straight, ctrl_c):
    folder = tmp_path / "r"
    interrupt_at(monkeypatch, 9, times=2)
    with pytest.raises(TrainingInterrupted) as stop:
        BackgammonRun(folder, small_config(), checkpoint_every=5).run()
    assert (stop.value.games, stop.value.saved) == (5, False)
    assert _checkpoint_games(folder) == 5
    monkeypatch.undo()
    _same_as_straight(folder, BackgammonRun(folder, resume=True).run(), straight)


def test_ctrl_c_during_a_test_keeps_the_training_and_tests_again(tmp_path, straight):
    folder = tmp_path / "r"

    def stop_in_test(row):
        if row["games"] == 24:
            raise KeyboardInterrupt

    with pytest.raises(TrainingInterrupted) as stop:
        BackgammonRun(folder, small_config(), checkpoint_every=100).run(progress=stop_in_test)
    assert (stop.value.games, stop.value.saved) == (24, True)
    _same_as_straight(folder, BackgammonRun(folder, resume=True).run(), straight)


def test_a_kill_loses_at_most_the_games_since_the_last_checkpoint(tmp_path, monkeypatch, straight):
    folder = tmp_path / "r"

    class Killed(BaseException):
        pass

    original = ModularTrainer.play_game

    def play_game(self):
        if self.games == 18:
            raise Killed  # as kill -9: nothing more is written
        return original(self)

    monkeypatch.setattr(ModularTrainer, "play_game", play_game)
    with pytest.raises(Killed):
        BackgammonRun(folder, small_config(), checkpoint_every=5).run()
    assert _checkpoint_games(folder) == 15
    monkeypatch.undo()
    leftover = folder / f".checkpoint.npz.pid{dead_pid()}.abcdefgh.tmp"  # what a kill mid-write leaves
    leftover.write_bytes(b"half a checkpoint")
    os.utime(leftover, (time.time() - 30, time.time() - 30))
    _same_as_straight(folder, BackgammonRun(folder, resume=True).run(), straight)
    assert not leftover.exists()


def test_bg_train_ctrl_c_exits_cleanly_with_one_line(tmp_path):
    folder = tmp_path / "cli"
    argv = ["bg", "train", "--out", str(folder), "--encoding", "tesauro198", "--alpha", "0.1", "-n", "100000",
            "--test-every", "100000", "--test-games", "2", "--checkpoint-every", "3"]
    proc = start(argv)
    try:
        assert wait_for(lambda: (folder / "checkpoint.npz").exists(), 120, proc), proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        out, err = proc.communicate(timeout=60)
    finally:
        kill_group(proc)
    assert proc.returncode == 130, (out, err)
    # on a slow machine the progress reporter's plain lines (one every 10 s in a log) come first; Ctrl-C adds one
    said = [line for line in err.strip().splitlines() if not line.startswith(f"bg train {folder}: ")]
    assert "Traceback" not in err and len(said) == 1, err
    games = int(err.split("saved at game ")[1].split()[0])
    assert said[0].startswith("sumito: interrupted: checkpoint saved") and "--resume" in said[0]
    assert games >= 3 and _checkpoint_games(folder) == games
    assert json.loads((folder / "config.json").read_text())["games"] == 100000
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_bg_train_checkpoint_every_option(capsys, tmp_path):
    code, _, err = run(capsys, "bg", "train", "--out", tmp_path / "x", "--checkpoint-every", 0)
    assert code == 2 and "argument --checkpoint-every: the value must be from 1" in err


def test_the_suite_runs_in_a_temporary_home_that_every_cache_and_archive_follows():
    """tests/conftest.py points HOME and the XDG folders into a temporary folder before sumito is imported: every
    place the program keeps things (solved tables, compiled kernels, the game archive, the web's games) is
    there or in the system's temporary folder, never the user's (conftest also fails the session when the
    user's home changed)."""
    import tempfile

    import numba

    from sumito.arena.db import default_db_path
    from sumito.solve.table import cache_dir
    from sumito.web.store import default_web_db_path

    tmp = Path(tempfile.gettempdir()).resolve()
    home = Path(os.environ["HOME"]).resolve()
    assert home.is_relative_to(tmp) and Path.home().resolve() == home
    for place in (cache_dir(), default_db_path(), default_web_db_path()):
        assert Path(place).resolve().is_relative_to(home), place
    assert Path(numba.config.CACHE_DIR).resolve().is_relative_to(tmp)
