"""Interrupt and kill Sumito's long-running commands at random moments, and count what held.

    python experiments/probe_kills.py [--count 10] [--seed 7] [--kinds ctrl-c,kill-9,eof,web] [--requests 300]

Every probe runs a real ``sumito`` process (``python -m sumito``, its own process group, as a terminal
would start it) on tiny sizes with fast players, in a scratch folder of its own:

* **Ctrl-C** ``match``, ``tournament``, ``sprt``, ``train``, ``nnue gen`` (two workers each) and ``engine``
  during ``go infinite``: SIGINT to the process group (what a terminal's Ctrl-C sends) at a random moment.
  Held: exit status 130 (or death by SIGINT) within 1 s of the signal, no traceback on stderr, none of its
  processes left 3 s later, and, where the command keeps state, the rerun below.
* **kill -9** the same runs: SIGKILL to the command's process alone. Held: none of its processes (its
  descendants seen just before the kill, and its process group) left 3 s later, the rerun below, and no
  temporary file (``*.tmp``) in its folder after the rerun.
* **The rerun** is the same command again (``train`` with ``--resume`` once the run has a checkpoint); it
  must finish (status 0) with every game counted once and the same results as an uninterrupted run of the
  same command: ``sprt --journal`` the same final line and one journal line a game; ``train`` the same
  checkpoint game count, network and curve rows; ``nnue gen`` the same chunks, each game in one of them;
  ``match`` and ``tournament`` (which do not resume: the rerun is a new run in the same ``--db``) the killed
  run marked interrupted or finished with each of its stored games once and replayable, and the new run
  finished with the uninterrupted run's games.
* **EOF engine**: the engine's input closed during ``go infinite``. Held: exit status 0 within 2 s, the
  last line of its output a ``bestmove``.
* **web requests** (``--requests``): hostile requests (mutated and random bodies, ids and tokens) to
  ``sumito serve --port 0``. Held: a 2xx, or a 4xx whose body is ``{"detail": one line}``; never a 5xx, a
  dropped connection or no answer within 30 s.
* **web kill -9**: ``sumito serve`` killed while computer-against-computer games think in its workers, then
  started again on the same ``--db``, ``--archive`` and port. Held: no worker left, the new server starts,
  lists every game made so far and answers ``/api/archive``.

A random moment is a delay drawn uniformly from [0, 0.95 × the uninterrupted run's duration] after the
command's first sign of work (its first output line, or its state file appearing): the second or so of
Python's imports before it is outside the window (a Ctrl-C there is Python's own traceback). A moment at
which the process had already ended is drawn again; a Ctrl-C that lands after the command's ``main`` returned
(the process tearing down) may rightly end it with status 0 (a line the probe's driver prints tells).

The script prints one Markdown table row per probe kind and each failure's details on stderr;
docs/reliability.md's figures come from it.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import numpy as np
from probe_parsers import hostile

from sumito.arena.db import GameArchive
from sumito.errors import SumitoError
from sumito.fileio import DEAD_WRITER_TEMP_SECONDS, process_alive
from sumito.games.abalone import LAYOUTS
from sumito.learn.run import load_checkpoint
from sumito.procs import descendants
from sumito.stopping import run_main

INTERRUPTED = (130, -signal.SIGINT)
CTRL_C_LIMIT = 1.0  # seconds from Ctrl-C to exit
EOF_LIMIT = 2.0  # seconds from the end of the engine's input to its exit
LEFTOVER_GRACE = 3.0  # seconds a killed command's processes get to die
RERUN_TIMEOUT = 300
ENV = {**os.environ, "SUMITO_THREADS": "1", "PYTHONUNBUFFERED": "1"}
#: what the command runs: ``sumito`` (its ``main``, as the console script and ``python -m sumito`` run it), then a
#: line on stderr once ``main`` has returned, so that a Ctrl-C landing after the command's work (exit status 0,
#: rightly) is told from one the command swallowed
RETURNED = "probe_kills: main returned"
DRIVER = ("import sys\nfrom sumito.cli import main\ncode = main(sys.argv[1:])\n"
          f"print('{RETURNED}', code, file=sys.stderr, flush=True)\nsys.exit(code)\n")


# --------------------------------------------------------------------------- processes
class Proc:
    """``sumito argv`` (see :data:`DRIVER`) in a process group of its own, its output lines collected as they
    come; ``returned`` is when its ``main`` was seen to return (None: it did not)."""

    def __init__(self, argv: list[str], cwd: Path, stdin: bool = False) -> None:
        self.argv = argv
        self.returned: float | None = None
        self.proc = subprocess.Popen(
            [sys.executable, "-c", DRIVER, *argv], cwd=cwd, env=ENV, start_new_session=True,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.pid = self.proc.pid
        self.out: list[str] = []
        self.err: list[str] = []
        self.spoke = threading.Event()
        self.readers = [threading.Thread(target=self._read, args=(stream, lines), daemon=True)
                        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, lines: list[str]) -> None:
        for raw in stream:
            line = raw.decode("utf-8", errors="replace")
            if line.startswith(RETURNED):
                self.returned = time.monotonic()
                continue
            lines.append(line)
            self.spoke.set()

    def wait_for(self, sign: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``sign()`` or the process ends; whether ``sign()`` came first."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if sign():
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.005)
        return False

    def wait_line(self, text: str, timeout: float) -> bool:
        return self.wait_for(lambda: any(text in line for line in self.out), timeout)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float) -> int | None:
        """The exit status, or None (and the process group killed) when it runs past ``timeout``."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill_group()
            self.proc.wait()
            code = None
        for reader in self.readers:
            reader.join(timeout=5)
        return code

    def kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    @property
    def stderr(self) -> str:
        return "".join(self.err)


def group_members(pgid: int) -> list[int]:
    """The living processes (zombies are dead) of process group ``pgid``, from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except (OSError, ValueError):
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # state, ppid, pgrp, ...
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(name))
    return found


def leftovers(seen: list[tuple[int, int]], pgid: int, grace: float = LEFTOVER_GRACE) -> list[str]:
    """Processes of a stopped command still alive ``grace`` seconds on: those of ``seen`` (pid, start time) and
    any of its process group ``pgid``; each as ``pid (command line)``."""
    end = time.monotonic() + grace
    while True:
        alive = {pid for pid, start in seen if process_alive(pid, str(start))} | set(group_members(pgid))
        if not alive or time.monotonic() > end:
            break
        time.sleep(0.05)
    shown = []
    for pid in sorted(alive):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            cmd = "?"
        shown.append(f"{pid} ({cmd.strip()[:100]})")
    return shown


def temp_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.tmp"))


def tail(text: str, lines: int = 6) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])[-800:]


# --------------------------------------------------------------------------- the commands probed
@dataclass
class Command:
    """A command with state: how to run it, rerun it and judge the rerun against an uninterrupted run."""

    name: str
    argv: Callable[[Path], list[str]]
    ready: Callable[[Path], bool]  # its state appeared: work has begun (besides its first output line)
    check: Callable[[Path, Path, str], str | None]  # (folder, reference folder, rerun's stdout): None = held
    rerun: Callable[[Path], list[str]] | None = None  # default: the same command
    window: float = 0.0  # seconds from the first sign of work to the end, in the uninterrupted run
    reference: Path = field(default_factory=Path)


def _archive_runs(db: Path) -> tuple[list, dict[int, list]]:
    archive = GameArchive(db)  # opened for writing: a run whose process was killed is marked interrupted
    try:
        runs = sorted(archive.runs(), key=lambda r: r.id)
        games = {run.id: archive.games(run=run.id) for run in runs}
        for stored in games.values():
            for game in stored:
                game.replay(str(db))  # an ArchiveError if a row is damaged
    finally:
        archive.close()
    return runs, games


def check_archive(work: Path, ref: Path, out: str) -> str | None:
    try:
        runs, games = _archive_runs(work / "games.sqlite")
        (ref_run,), ref_games = _archive_runs(ref / "games.sqlite")
    except SumitoError as exc:
        return f"archive: {exc}"
    if not 1 <= len(runs) <= 2:
        return f"{len(runs)} runs in the archive, not the killed one and the rerun"
    for run in runs:
        indices = [g.game_index for g in games[run.id]]
        if len(set(indices)) != len(indices) or len(indices) != run.games_stored:
            return f"run {run.id}: a game stored twice ({len(indices)} rows, {len(set(indices))} games)"
        if any(not 0 <= i < run.games_planned for i in indices):
            return f"run {run.id}: a game index outside 0..{run.games_planned - 1}"
    *first, last = runs
    if first and first[0].status not in ("interrupted", "finished"):
        return f"the stopped run {first[0].id} is {first[0].status!r}, not interrupted"
    if first and first[0].status == "finished" and first[0].games_stored != first[0].games_planned:
        return f"the stopped run is marked finished with {first[0].games_stored} of {first[0].games_planned} games"
    if last.status != "finished" or last.games_stored != last.games_planned:
        return f"the rerun is {last.status!r} with {last.games_stored} of {last.games_planned} games"

    def played(stored: list) -> list:
        return sorted((g.game_index, g.moves, g.result) for g in stored)

    if played(games[last.id]) != played(ref_games[ref_run.id]):
        return "the rerun's games differ from the uninterrupted run's"
    for run in first:  # the stopped run's games are the uninterrupted run's games of the same index
        reference = {g.game_index: (g.moves, g.result) for g in ref_games[ref_run.id]}
        if any(reference[g.game_index] != (g.moves, g.result) for g in games[run.id]):
            return f"the stopped run {run.id} stored a game that differs from the uninterrupted run's"
    return None


def _final_line(text: str) -> str:
    lines = [line for line in text.splitlines() if " games (" in line and "pentanomial" in line]
    return lines[-1].strip() if lines else ""


def check_sprt(work: Path, ref: Path, out: str) -> str | None:
    expected = _final_line((ref / "stdout.txt").read_text())
    if _final_line(out) != expected:
        return f"final line {_final_line(out)[:120]!r}, not {expected[:120]!r}"
    keys = []
    for line in (work / "sprt.jsonl").read_text(encoding="utf-8", errors="replace").splitlines():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            keys.append(json.loads(line)["key"])  # a line cut short by the kill is skipped, as the journal does
    games = int(expected.split()[0])
    if len(keys) != len(set(keys)) or len(set(keys)) != games:
        return f"journal: {len(keys)} games written, {len(set(keys))} different, not {games}"
    return None


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _same_arrays(a: Path, b: Path) -> bool:
    x, y = _arrays(a), _arrays(b)
    return x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def _curve_games(path: Path) -> list[str]:
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return [row["games"] for row in csv.DictReader(fh)]


TRAIN_GAMES = 1500


def check_train(work: Path, ref: Path, out: str) -> str | None:
    run, ref_run = work / "run", ref / "run"
    try:
        games = load_checkpoint(run / "checkpoint.npz")["state"]["games"]
    except SumitoError as exc:
        return f"checkpoint: {exc}"
    if games != TRAIN_GAMES:
        return f"the checkpoint is at game {games}, not {TRAIN_GAMES}"
    if not _same_arrays(run / "network.npz", ref_run / "network.npz"):
        return "network.npz differs from the uninterrupted run's"
    got, want = _curve_games(run / "curve.csv"), _curve_games(ref_run / "curve.csv")
    if got != want:
        return f"curve.csv has evaluations at games {got}, the uninterrupted run at {want}"
    return None


NNUE_GAMES = 60


def check_nnue(work: Path, ref: Path, out: str) -> str | None:
    chunks = sorted(p.name for p in (work / "data").glob("chunk-*.npz"))
    expected = sorted(p.name for p in (ref / "data").glob("chunk-*.npz"))
    if chunks != expected:
        return f"chunks {chunks}, not {expected}"
    seen: list[int] = []
    for name in chunks:
        seen.extend(sorted(set(_arrays(work / "data" / name)["game"].tolist())))
        if not _same_arrays(work / "data" / name, ref / "data" / name):
            return f"{name} differs from the uninterrupted run's"
    if sorted(seen) != list(range(NNUE_GAMES)):
        return f"games in the chunks: {len(seen)}, {len(set(seen))} different, not 0..{NNUE_GAMES - 1} once each"
    return None


def _train_rerun(work: Path) -> list[str]:
    resume = (work / "run" / "checkpoint.npz").exists()
    argv = ["train", "--games", str(TRAIN_GAMES), "--out", "run", "--checkpoint-every", "50", "--eval-every", "300",
            "--eval-games", "8", "--workers", "2", "--quiet"]
    return [*argv, "--resume"] if resume else [*argv, "--set", "layout=mini", "--seed", "0"]


COMMANDS = [
    Command("match", lambda w: ["match", "random", "greedy", "-n", "120", "--workers", "2", "--seed", "1",
                                "--max-plies", "200", "--quiet", "--db", "games.sqlite"],
            lambda w: (w / "games.sqlite").exists(), check_archive),
    Command("tournament", lambda w: ["tournament", "random", "greedy", "random:seed=2", "-n", "60", "--workers", "2",
                                     "--seed", "1", "--max-plies", "200", "--quiet", "--db", "games.sqlite"],
            lambda w: (w / "games.sqlite").exists(), check_archive),
    Command("sprt", lambda w: ["sprt", "random", "greedy", "--fixed", "--max-games", "120", "--workers", "2",
                               "--max-plies", "200", "--journal", "sprt.jsonl"],
            lambda w: (w / "sprt.jsonl").exists(), check_sprt),
    Command("train", _train_rerun, lambda w: (w / "run").exists(), check_train, rerun=_train_rerun),
    Command("nnue gen", lambda w: ["nnue", "gen", "--out", "data", "--games", str(NNUE_GAMES), "--chunk", "2",
                                   "--player", "engine:depth=1,threads=1", "--workers", "2", "--max-plies", "60",
                                   "--seed", "1"],
            lambda w: (w / "data").exists(), check_nnue),
]


# --------------------------------------------------------------------------- one probe
@dataclass
class Tally:
    probe: str
    tried: int = 0
    held: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    missed: int = 0  # moments drawn after the run had finished (drawn again)

    def record(self, what: str | None, detail: str) -> None:
        self.tried += 1
        if what is None:
            self.held += 1
        else:
            self.failures.append(f"{self.probe} #{self.tried}: {detail}: {what}")
            print(f"  FAILED {self.failures[-1]}", file=sys.stderr, flush=True)

    def row(self) -> str:
        return (f"| {self.probe} | {self.tried:,} | {self.held:,} | {len(self.failures):,} | {self.seconds:.0f} |")


def prepare_reference(cmd: Command, scratch: Path) -> None:
    """Run the command uninterrupted, twice: the first run compiles what numba has not cached yet (its workers'
    kernels too), so that the second gives the window of the moments; its results are compared with."""
    name = cmd.name.replace(" ", "-")
    warm = scratch / f"warm-up-{name}"
    warm.mkdir()
    Proc(cmd.argv(warm), warm).finish(RERUN_TIMEOUT)
    shutil.rmtree(warm, ignore_errors=True)
    ref = scratch / f"reference-{name}"
    ref.mkdir()
    proc = Proc(cmd.argv(ref), ref)
    proc.wait_for(lambda: proc.spoke.is_set() or cmd.ready(ref), 120)
    began = time.monotonic()
    code = proc.finish(RERUN_TIMEOUT)
    if code != 0:
        raise SystemExit(f"the uninterrupted {cmd.name} failed ({code}): {tail(proc.stderr)}")
    cmd.window = time.monotonic() - began
    print(f"  the uninterrupted `sumito {cmd.name}` ran {cmd.window:.1f} s after it began", file=sys.stderr, flush=True)
    cmd.reference = ref
    (ref / "stdout.txt").write_text(proc.stdout)


def probe_stop(cmd: Command, how: str, rng: random.Random, folder: Path) -> tuple[str | None, str]:
    """Start ``cmd``, stop it at a random moment (``ctrl-c`` or ``kill-9``), rerun it and judge the whole.
    Returns (what failed or None, where it happened); ``("missed", ...)`` when the run ended first."""
    proc = Proc(cmd.argv(folder), folder)
    if not proc.wait_for(lambda: proc.spoke.is_set() or cmd.ready(folder), 120):
        proc.finish(5)
        return f"never began (status {proc.proc.returncode}): {tail(proc.stderr)}", "start"
    moment = rng.uniform(0, 0.95 * cmd.window)
    time.sleep(moment)
    where = f"{moment:.2f} s after it began (of {cmd.window:.1f})"
    if proc.proc.poll() is not None:
        proc.finish(5)
        return "missed", where
    seen = descendants(proc.pid)
    sent = time.monotonic()
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # the whole group, as a terminal's Ctrl-C
    else:
        os.kill(proc.pid, signal.SIGKILL)
    code = proc.finish(30)
    took = time.monotonic() - sent
    problems = []
    if how == "ctrl-c":
        done = code == 0 and proc.returned is not None and proc.returned <= sent  # the work was over: rightly 0
        if code not in INTERRUPTED and not done:
            problems.append(f"exit status {code} after Ctrl-C")
        if took > CTRL_C_LIMIT:
            problems.append(f"{took:.2f} s from Ctrl-C to exit")
        if "Traceback" in proc.stderr or "Exception ignored" in proc.stderr:
            problems.append(f"a traceback on stderr: {tail(proc.stderr)}")
    left = leftovers(seen, proc.pid)
    if left:
        problems.append(f"processes left: {', '.join(left)}")
        for pid in (int(item.split()[0]) for item in left):  # ours to clean up, so that the next probe is fair
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    temps = temp_files(folder)
    if how == "ctrl-c" and temps:  # Ctrl-C lets a command clean up: it must not leave a half-written file
        problems.append(f"temporary files left by Ctrl-C: {temps}")
    elif temps:  # a kill -9 may leave one; the rerun removes it once it is a couple of seconds old (fileio)
        time.sleep(max(0.0, sent + DEAD_WRITER_TEMP_SECONDS + 0.5 - time.monotonic()))
    rerun = Proc((cmd.rerun or cmd.argv)(folder), folder)
    code = rerun.finish(RERUN_TIMEOUT)
    if code != 0:
        problems.append(f"the rerun exited with status {code}: {tail(rerun.stderr)}")
    else:
        verdict = cmd.check(folder, cmd.reference, rerun.stdout)
        if verdict:
            problems.append(f"after the rerun: {verdict}")
        temps = temp_files(folder)
        if temps:
            problems.append(f"temporary files left after the rerun: {temps}")
    return ("; ".join(problems) or None), where


def run_command_probes(cmd: Command, how: str, count: int, rng: random.Random, scratch: Path) -> Tally:
    tally = Tally(f"{'Ctrl-C' if how == 'ctrl-c' else 'kill -9'} `sumito {cmd.name}`")
    t0 = time.monotonic()
    while tally.tried < count:
        folder = Path(tempfile.mkdtemp(prefix=f"{how}-", dir=scratch))
        what, where = probe_stop(cmd, how, rng, folder)
        if what == "missed" and tally.missed < 10 * count:
            tally.missed += 1
        else:
            tally.record(what, where)
        shutil.rmtree(folder, ignore_errors=True)
    tally.seconds = time.monotonic() - t0
    return tally


# --------------------------------------------------------------------------- the engine protocol
def start_engine(folder: Path) -> Proc | str:
    """``sumito engine`` searching ``go infinite`` (after a first search, so that its kernels are loaded)."""
    proc = Proc(["engine", "--player", "engine"], folder, stdin=True)
    proc.send("position startpos")
    proc.send("go depth 1")
    if not proc.wait_line("bestmove", 120):
        proc.kill_group()
        proc.finish(5)
        return f"no bestmove for go depth 1: {tail(proc.stderr)}"
    proc.send("go infinite")
    return proc


def probe_engine(how: str, rng: random.Random, folder: Path) -> tuple[str | None, str]:
    proc = start_engine(folder)
    if isinstance(proc, str):
        return proc, "start"
    moment = rng.uniform(0.05, 2.0)
    time.sleep(moment)
    where = f"{moment:.2f} s into go infinite"
    seen = descendants(proc.pid)
    before = len(proc.out)
    sent = time.monotonic()
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
    elif how == "kill-9":
        os.kill(proc.pid, signal.SIGKILL)
    else:
        assert proc.proc.stdin is not None
        proc.proc.stdin.close()  # the GUI went away
    code = proc.finish(30)
    took = time.monotonic() - sent
    problems = []
    if how == "ctrl-c":
        if code not in INTERRUPTED:
            problems.append(f"exit status {code} after Ctrl-C")
        if took > CTRL_C_LIMIT:
            problems.append(f"{took:.2f} s from Ctrl-C to exit")
        if "Traceback" in proc.stderr:
            problems.append(f"a traceback on stderr: {tail(proc.stderr)}")
    elif how == "eof":
        if code != 0:
            problems.append(f"exit status {code} at the end of its input: {tail(proc.stderr)}")
        if took > EOF_LIMIT:
            problems.append(f"{took:.2f} s from the end of its input to exit")
        last = [line for line in proc.out[before:] if line.strip()]
        if not last or not last[-1].startswith("bestmove "):
            problems.append(f"its last line is {last[-1].strip()[:80] if last else None!r}, not a bestmove")
    left = leftovers(seen, proc.pid)
    if left:
        problems.append(f"processes left: {', '.join(left)}")
    return ("; ".join(problems) or None), where


def run_engine_probes(how: str, count: int, rng: random.Random, scratch: Path) -> Tally:
    label = {"ctrl-c": "Ctrl-C `sumito engine` in go infinite", "kill-9": "kill -9 `sumito engine` in go infinite",
             "eof": "EOF `sumito engine` in go infinite"}[how]
    tally = Tally(label)
    t0 = time.monotonic()
    for _ in range(count):
        tally.record(*probe_engine(how, rng, scratch))
    tally.seconds = time.monotonic() - t0
    return tally


# --------------------------------------------------------------------------- the web server
TOKEN = "probe-kills-token-0123456789"


class Server:
    """``sumito serve`` on ``port`` (0: a free one) with its databases in ``home``."""

    def __init__(self, home: Path, port: int = 0) -> None:
        self.proc = Proc(["serve", "--port", str(port), "--db", "web.sqlite", "--archive", "games.sqlite",
                          "--workers", "2"], home)
        self.port = 0
        if self.proc.wait_line("Sumito is running at ", 120):
            line = next(line for line in self.proc.out if "Sumito is running at " in line)
            self.port = int(line.rsplit(":", 1)[1].strip().strip("/"))

    def request(self, method: str, path: str, body: bytes | None = None, token: str = TOKEN,
                timeout: float = 30) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Host": f"127.0.0.1:{self.port}", "X-Sumito-Token": token}
            if body is not None:
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=headers)
            answer = conn.getresponse()
            return answer.status, answer.read()
        finally:
            conn.close()

    def new_game(self, black: str, white: str, **extra: object) -> str:
        body = json.dumps({"black": black, "white": white, **extra}).encode()
        status, body = self.request("POST", "/api/games", body)
        if status != 201:
            raise RuntimeError(f"POST /api/games: {status} {body[:200]!r}")
        return json.loads(body)["id"]

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGINT)
        if self.proc.finish(20) is None:
            print("  the server did not stop within 20 s of Ctrl-C (killed)", file=sys.stderr)


def hostile_request(rng: random.Random, game: str, stored: int) -> tuple[str, str, bytes | None, str]:
    """(method, path, body, token): a route of the API with its id, body and token made hostile at random."""
    routes = [
        ("POST", "/api/games", {"black": "human", "white": "random", "layout": "mini", "speed": 0.5}),
        ("POST", "/api/games/{g}/moves", {"move": "a1b1"}),
        ("POST", "/api/games/{g}/undo", {}), ("POST", "/api/games/{g}/redo", {}),
        ("POST", "/api/games/{g}/resign", {"side": "black"}), ("POST", "/api/games/{g}/speed", {"speed": 1.0}),
        ("POST", "/api/games/{g}/hint", {"seconds": 0.1}),
        ("POST", "/api/records", {"text": '[Event "x"]\n\n1. a1b1 i5h5 *\n'}),
        ("POST", "/api/position", {"position": LAYOUTS["mini"].position_string}),
        ("POST", "/api/archive/{s}/analysis", {"start": 0, "count": 2}),
        ("GET", "/api/games/{g}?wait=0.2&ply=0", None), ("GET", "/api/games/{g}/legal", None),
        ("GET", "/api/games/{g}/record", None), ("GET", "/api/archive/{s}?start=0&count=5", None),
        ("GET", "/api/archive?limit=3", None), ("GET", "/api/games", None), ("DELETE", "/api/games/{g}", None),
    ]
    method, path, body = rng.choice(routes)
    ids = {"g": game, "s": str(stored)}
    if rng.random() < 0.2:  # a hostile id or query
        ids = {k: quote(hostile(rng, [v]), safe="") for k, v in ids.items()}
        path = path.replace("0.2", quote(hostile(rng, ["0.2"]), safe=""))
    path = path.replace("{g}", ids["g"]).replace("{s}", ids["s"])
    token = TOKEN
    if rng.random() < 0.1:  # a header cannot hold line breaks or other controls (http.client refuses them)
        token = "".join(c if " " <= c <= "~" else "?" for c in hostile(rng, [TOKEN]))
    if body is None:
        return method, path, None, token
    text = json.dumps(body)
    r = rng.random()
    if r < 0.45:
        raw = hostile(rng, [text]).encode("utf-8", "surrogatepass")
    elif r < 0.7:  # one field of another type or size
        key = rng.choice(list(body) or ["x"])
        body[key] = rng.choice([10**400, -1e308, float("nan"), "x" * 300_000, [[[[]]]] * 50, None, True, {"a": 1},
                                "engine:depth=64,time=86400", "td:net=/dev/zero", "\u0000\ufffd\u202e"])
        raw = json.dumps(body).encode()
    elif r < 0.8:
        raw = "[" * 100_000 + "]" * 100_000  # deep nesting
        raw = raw.encode()
    elif r < 0.9:
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    else:
        raw = text.encode()
    return method, path, raw, token


def answer_holds(status: int, body: bytes) -> str | None:
    if status >= 500:
        return f"status {status}: {body[:200]!r}"
    if 400 <= status < 500:
        try:
            detail = json.loads(body)["detail"]
        except (ValueError, KeyError, TypeError):
            return f"status {status} without a JSON detail: {body[:200]!r}"
        if not isinstance(detail, str) or "\n" in detail or not detail or len(detail) > 2000:
            return f"status {status}: not a short one-line detail: {str(detail)[:200]!r}"
    return None


def run_web_requests(count: int, rng: random.Random, scratch: Path) -> Tally:
    tally = Tally("hostile web requests to `sumito serve`")
    home = Path(tempfile.mkdtemp(prefix="web-", dir=scratch))
    t0 = time.monotonic()
    server = Server(home)
    if not server.port:
        tally.record(f"the server did not start: {tail(server.proc.stderr)}", "start")
        server.stop()
        return tally
    try:
        game = server.new_game("human", "human", layout="mini")
        statuses: dict[int, int] = {}
        for _ in range(count):
            method, path, body, token = hostile_request(rng, game, rng.randint(1, 3))
            status = 0
            try:
                status, answer = server.request(method, path, body, token)
                statuses[status] = statuses.get(status, 0) + 1
                what = answer_holds(status, answer)
            except (OSError, http.client.HTTPException) as exc:
                what = f"no answer: {type(exc).__name__}: {exc}"
            tally.record(what, f"{method} {path[:80]} with {len(body or b'')} bytes")
            if method == "DELETE" and status == 204:  # the game aimed at is gone: another, so that not all is 404
                game = server.new_game("human", "human", layout="mini")
            if server.proc.proc.poll() is not None:
                tally.record(f"the server died: {tail(server.proc.stderr)}", "after that request")
                break
        print(f"  web answers: {', '.join(f'{n} x {s}' for s, n in sorted(statuses.items()))}", file=sys.stderr)
    finally:
        server.stop()
    tally.seconds = time.monotonic() - t0
    shutil.rmtree(home, ignore_errors=True)
    return tally


def run_web_kills(count: int, rng: random.Random, scratch: Path) -> Tally:
    tally = Tally("kill -9 `sumito serve` with games in flight, restart on its --db")
    home = Path(tempfile.mkdtemp(prefix="web-kill-", dir=scratch))
    t0 = time.monotonic()
    server = Server(home)
    port = server.port
    made: list[str] = []
    try:
        for _ in range(count):
            if not server.port:
                tally.record(f"the server did not start: {tail(server.proc.stderr)}", "start")
                break
            try:
                ids = [server.new_game("engine:depth=4", "engine:depth=4", speed=0) for _ in range(2)]
            except (RuntimeError, OSError, http.client.HTTPException) as exc:
                tally.record(f"cannot start games: {exc}", "before the kill")
                break
            made.extend(ids)
            moment = rng.uniform(0.1, 1.5)
            time.sleep(moment)
            seen = descendants(server.proc.pid)
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.finish(30)
            problems = []
            left = leftovers(seen, server.proc.pid)
            if left:
                problems.append(f"processes left: {', '.join(left)}")
            server = Server(home, port)
            if not server.port:
                problems.append(f"no restart on port {port}: {tail(server.proc.stderr)}")
            else:
                try:
                    status, body = server.request("GET", "/api/games")
                    listed = {g["id"] for g in json.loads(body)} if status == 200 else set()
                    missing = [g for g in made if g not in listed]
                    if status != 200 or missing:
                        problems.append(f"GET /api/games: {status}, missing {missing}")
                    status, body = server.request("GET", "/api/archive")
                    if status != 200:
                        problems.append(f"GET /api/archive: {status} {body[:200]!r}")
                    for g in ids:  # their computers would think on, on a busy machine: stop them
                        server.request("POST", f"/api/games/{g}/resign", json.dumps({"side": "black"}).encode())
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    problems.append(f"the restarted server: {type(exc).__name__}: {exc}")
            tally.record("; ".join(problems) or None, f"{moment:.2f} s after two engine games began")
    finally:
        server.stop()
    tally.seconds = time.monotonic() - t0
    shutil.rmtree(home, ignore_errors=True)
    return tally


# --------------------------------------------------------------------------- main
KINDS = ("ctrl-c", "kill-9", "eof", "web")


def start_table(tallies: list[Tally]) -> Callable[[Tally], None]:
    """Print the head of the probes' Markdown table; the function that prints a probe's row (and keeps it)."""
    print("| probe | tried | held | failed | seconds |")
    print("|---|---|---|---|---|", flush=True)

    def show(tally: Tally) -> None:
        tallies.append(tally)
        print(tally.row(), flush=True)

    return show


def report_failures(tallies: list[Tally]) -> int:
    """Each failure's details on stderr; the exit status (1 when any probe failed)."""
    failures = [f for t in tallies for f in t.failures]
    for failure in failures:
        print(f"  {failure}", file=sys.stderr)
    return 1 if failures else 0


def chosen_kinds(parser: argparse.ArgumentParser, text: str, known: Sequence[str]) -> list[str]:
    """``--kinds``: the comma-separated probe kinds, each one of ``known`` (else the parser's one-line error)."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in known]
    if unknown:
        parser.error(f"unknown probe kind {unknown[0]!r}")
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10, help="tries of each probe kind (default 10)")
    parser.add_argument("--requests", type=int, default=300, help="hostile web requests (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"which probes, comma-separated among {', '.join(KINDS)} (default all)")
    parser.add_argument("--commands", default=",".join(c.name for c in COMMANDS),
                        help="which commands Ctrl-C and kill -9 stop (default all; the engine always)")
    args = parser.parse_args(argv)
    kinds = chosen_kinds(parser, args.kinds, KINDS)
    names = [c.strip() for c in args.commands.split(",") if c.strip()]
    commands = [c for c in COMMANDS if c.name in names] if {"ctrl-c", "kill-9"} & set(kinds) else []
    rng = random.Random(args.seed)
    tallies: list[Tally] = []
    with tempfile.TemporaryDirectory(prefix="probe-kills-") as tmp:
        scratch = Path(tmp)
        ENV["XDG_DATA_HOME"] = str(scratch / "data")  # never the user's own archive
        show = start_table(tallies)
        for cmd in commands:
            prepare_reference(cmd, scratch)
            for how in ("ctrl-c", "kill-9"):
                if how in kinds:
                    show(run_command_probes(cmd, how, args.count, rng, scratch))
        for how in ("ctrl-c", "kill-9", "eof"):
            if how in kinds:
                show(run_engine_probes(how, args.count, rng, scratch))
        if "web" in kinds:
            show(run_web_requests(args.requests, rng, scratch))
            show(run_web_kills(args.count, rng, scratch))
    missed = sum(t.missed for t in tallies)
    if missed:
        print(f"({missed} moments fell after the run had ended and were drawn again)", file=sys.stderr)
    return report_failures(tallies)


if __name__ == "__main__":
    run_main(main, resumable=False)
