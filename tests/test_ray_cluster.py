"""A real two-node Ray cluster on this machine: a head and a worker node of one CPU each, started with
`ray start` in processes of their own (a temporary folder, token authentication on, as docs/scale.md's
recipe), with the commands run across it as a user runs them (`sumito ... --backend ray --address`):

- `train --actors 2` with evaluation finishes (two actors and the evaluation tasks on two nodes of one CPU
  used to wait for each other forever), and its last evaluation is the process pool's;
- `nnue gen` writes the chunks the process pool writes;
- a tournament whose worker node's raylet is killed in the middle (a game running there) counts every game
  once, with the games the process pool plays;
- `--address` errors name their cause in one line, quickly: no token, a wrong token, another Ray version
  (an address that is not a Ray cluster: tests/test_ray.py).

Everything stays on the loopback interface: each node and each driver is pinned to 127.0.0.1, and every
socket the cluster's processes listen on is checked (the test is skipped, never run on another address, if
one is not). The cluster's processes are all killed at the end, by process id (never `ray stop`, which
stops every Ray on the machine).
"""

from __future__ import annotations

import contextlib
import csv
import ipaddress
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'sumito[ray]'")

from sumito.arena.errors import ArenaError  # noqa: E402
from sumito.arena.executor import check_cluster  # noqa: E402
from sumito.cli import main  # noqa: E402
from sumito.learn.evaluation import evaluate  # noqa: E402
from sumito.procs import descendants  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to pin and stop the cluster")

LOOPBACK = "127.0.0.1"
#: `ray start` swaps a loopback --node-ip-address, and the loopback host of --address, for this machine's own
#: network address (so that other machines could reach the node). This runs Ray's own `ray start` with that
#: one substitution turned off: the node's servers then bind 127.0.0.1 alone (checked below)
RAY_START = (
    "import sys\n"
    "import ray._private.services as services\n"
    "services.resolve_ip_for_localhost = lambda host: host\n"
    "from ray.scripts.scripts import main\n"
    "sys.argv[0] = 'ray'\n"
    "main()\n"
)
#: how long a node may take to start on a busy two-core machine
START_TIMEOUT = 90.0
#: how long one command across the cluster may take before the test calls it hung
COMMAND_TIMEOUT = 240.0


@dataclass
class Cluster:
    address: str
    env: dict[str, str]  # a driver's environment: the token, and 127.0.0.1 kept as this node's address
    folder: Path
    head: subprocess.Popen
    worker: subprocess.Popen

    def processes(self) -> list[tuple[int, int]]:
        return [(p.pid, 0) for p in (self.head, self.worker)] + descendants(self.head.pid) + descendants(
            self.worker.pid)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def listening(pids: list[int]) -> set[str]:
    """The addresses the processes ``pids`` listen on (TCP), from /proc."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(int(link[8:-1]))
    found = set()
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        with contextlib.suppress(OSError), open(f"/proc/net/{table}") as fh:
            for line in fh.readlines()[1:]:
                fields = line.split()
                if fields[3] != "0A" or int(fields[9]) not in inodes:  # 0A: LISTEN
                    continue
                host = bytes.fromhex(fields[1].split(":")[0])
                # the kernel writes each 32-bit word of the address in host (little-endian) order
                raw = b"".join(host[i:i + 4][::-1] for i in range(0, len(host), 4))
                found.add(socket.inet_ntop(family, raw))
    return found


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def kill_all(processes: list[tuple[int, int]]) -> None:
    """SIGKILL each process of the list that is still the one listed (its pid started at the same time)."""
    for pid, start in processes:
        if start and _start_time(pid) != start:
            continue
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return int(stat[stat.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def wait_started(proc: subprocess.Popen, log: Path, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if "Ray runtime started" in text:
            return
        if proc.poll() is not None:
            raise RuntimeError(f"`ray start` of the {what} node exited ({proc.returncode}):\n{text[-3000:]}")
        time.sleep(0.2)
    raise RuntimeError(f"the {what} node did not start in {START_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def cluster():
    if shutil.which("ray", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("Ray's command line is not installed beside this Python")
    folder = Path(tempfile.mkdtemp(prefix="sumito-rc-", dir="/tmp"))  # short: Ray's socket paths are bounded
    token = folder / "auth_token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    env = {k: v for k, v in os.environ.items()
           if k not in ("RAY_ADDRESS", "SUMITO_RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE")}
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token), RAY_USAGE_STATS_ENABLED="0",
               SUMITO_THREADS="1")
    port = free_port()
    address = f"{LOOPBACK}:{port}"
    common = ["--block", "--num-cpus", "1", "--node-ip-address", LOOPBACK, "--temp-dir", str(folder / "ray"),
              "--object-store-memory", str(100 * 2**20), "--disable-usage-stats", "--include-log-monitor=false"]
    procs: list[subprocess.Popen] = []
    started: list[tuple[int, int]] = []
    try:
        head_log, worker_log = folder / "head.log", folder / "worker.log"
        with head_log.open("w") as out:
            head = subprocess.Popen([sys.executable, "-c", RAY_START, "start", "--head", "--port", str(port),
                                     "--include-dashboard=false", *common], stdout=out, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True)
        procs.append(head)
        wait_started(head, head_log, "head")
        with worker_log.open("w") as out:
            worker = subprocess.Popen([sys.executable, "-c", RAY_START, "start", "--address", address, *common],
                                      stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        procs.append(worker)
        wait_started(worker, worker_log, "worker")
        # a driver keeps 127.0.0.1 as its own node's address too (Ray's switch for clusters of one machine)
        driver_env = {**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
        c = Cluster(address, driver_env, folder, head, worker)
        started = c.processes()
        addresses = listening([pid for pid, _ in started])
        if not addresses or not all(is_loopback(a) for a in addresses):
            pytest.skip(f"Ray did not keep the cluster on the loopback interface (it listens on {sorted(addresses)})")
        yield c
    finally:
        # freeze the nodes (no new worker process), list every process of the cluster, kill them all
        for proc in procs:
            for pid, _ in descendants(proc.pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
        everything = started + [(p.pid, 0) for p in procs] + [d for p in procs for d in descendants(p.pid)]
        kill_all(everything)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def sumito(c: Cluster, *argv: str, env: dict[str, str] | None = None,
           timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
    """`sumito ARGV` as its own driver of the cluster."""
    return subprocess.run([sys.executable, "-m", "sumito", *argv], capture_output=True, text=True,
                          env=env or c.env, timeout=timeout)


def on_ray(c: Cluster) -> list[str]:
    return ["--backend", "ray", "--address", c.address]


# ----------------------------------------------------------------------------- train --actors 2 with evaluation
def test_train_with_two_actors_and_evaluation_finishes_on_two_one_cpu_nodes(cluster):
    out = cluster.folder / "run"  # an absolute folder every node sees (they share this machine)
    argv = ["train", "--games", "4", "--out", str(out), "--actors", "2", "--eval-every", "2", "--eval-games", "2",
            "--eval-opponent", "random", "--checkpoint-every", "2", "--set", "layout=mini", "--set", "max_plies=30",
            "--quiet", *on_ray(cluster)]
    try:
        done = sumito(cluster, *argv, timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`sumito train --actors 2` hung for {COMMAND_TIMEOUT:.0f} s on two nodes of one CPU")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "actors: 4 games applied" in done.stderr
    with (out / "curve.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["games"]) for r in rows] == [2, 4] and all(int(r["eval_games"]) == 2 for r in rows)
    # the last evaluation (of the network saved after game 4) is what the process pool makes of it
    last = rows[-1]
    seed = 0 + 4  # the run's seed (0) plus the game count, as `sumito train` seeds an evaluation
    assert evaluate(out / "network.npz", "random", 2, 2, seed, "mini") == (
        int(last["wins"]), int(last["draws"]), int(last["losses"]))


# ----------------------------------------------------------------------------- nnue gen
def test_nnue_gen_across_the_cluster_writes_the_process_pools_chunks(cluster, tmp_path, capsys):
    common = ["nnue", "gen", "--games", "4", "--chunk", "1", "--player", "engine:depth=1", "--max-plies", "20",
              "--random-plies", "2", "--workers", "2", "--seed", "5"]
    on_cluster = cluster.folder / "nnue"
    done = sumito(cluster, *common, "--out", str(on_cluster), *on_ray(cluster))
    assert done.returncode == 0, done.stderr[-3000:]
    assert main([*common, "--out", str(tmp_path / "pool")]) == 0
    capsys.readouterr()
    chunks = sorted(p.name for p in on_cluster.glob("chunk-*.npz"))
    assert chunks == sorted(p.name for p in (tmp_path / "pool").glob("chunk-*.npz")) and len(chunks) == 4
    for name in chunks:
        with np.load(on_cluster / name) as a, np.load(tmp_path / "pool" / name) as b:
            assert sorted(a.files) == sorted(b.files)
            for key in a.files:
                np.testing.assert_array_equal(a[key], b[key])


# ----------------------------------------------------------------------------- --address errors
def test_address_errors_name_their_cause_in_one_line_quickly(cluster, monkeypatch):
    # the command line: one line, exit status 2, within seconds (Ray alone logs for 20 s, then names no cause)
    argv = ["tournament", "random", "greedy", "-n", "2", "--layout", "mini", "--no-db", "--quiet", *on_ray(cluster)]
    no_token = {k: v for k, v in cluster.env.items() if k not in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH")}
    t0 = time.perf_counter()
    done = sumito(cluster, *argv, env=no_token, timeout=60)
    assert time.perf_counter() - t0 < 15
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "wants its authentication token: set RAY_AUTH_MODE=token" in done.stderr
    # the other causes, from the check itself (its request goes from a process of its own, with this environment)
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 64)
    with pytest.raises(ArenaError, match="refused this process's authentication token") as info:
        check_cluster(ray, cluster.address)
    assert "\n" not in str(info.value)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", cluster.env["RAY_AUTH_TOKEN_PATH"])
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    check_cluster(ray, cluster.address)  # the right token: no complaint
    theirs = ray.__version__
    monkeypatch.setattr(ray, "__version__", "2.0.0")  # this process as another Ray version
    with pytest.raises(ArenaError, match=rf"runs Ray {re.escape(theirs)} on .*, this process Ray 2\.0\.0 on"):
        check_cluster(ray, cluster.address)


# ----------------------------------------------------------------------------- a node lost mid-run
def tournament_games(db: Path) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(db)) as con:
        return con.execute("SELECT game_index, black_played, white_played, moves, result, reason FROM games "
                           "ORDER BY game_index").fetchall()


def worker_raylet(c: Cluster) -> int | None:
    for pid, _ in descendants(c.worker.pid):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().strip() == "raylet":
                return pid
    return None


def running_an_item(raylet: int) -> bool:
    """Whether a Ray worker process of the node of ``raylet`` is running a work item (its title says so)."""
    for pid, _ in descendants(raylet):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::_call"):
                return True
    return False


def test_a_tournament_survives_losing_a_node_and_counts_every_game_once(cluster, tmp_path, capsys):
    players = ["random", "greedy", "heuristic:depth=1"]
    common = ["tournament", *players, "-n", "8", "--layout", "mini", "--max-plies", "40", "--seed", "3",
              "--workers", "2", "--quiet"]
    raylet = worker_raylet(cluster)
    assert raylet is not None, "the worker node has no raylet"
    err_file = tmp_path / "stderr.txt"
    with err_file.open("w") as err_out:  # a file, not a pipe that nobody reads while the test watches the run
        proc = subprocess.Popen([sys.executable, "-m", "sumito", *common, "--db", str(tmp_path / "ray.db"),
                                 *on_ray(cluster)], stdout=subprocess.DEVNULL, stderr=err_out, env=cluster.env)
    killed = False
    seen: set[str] = set()
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while proc.poll() is None and time.monotonic() < deadline:
            seen |= listening([proc.pid, *(pid for pid, _ in descendants(proc.pid))])
            if not killed and running_an_item(raylet):
                os.kill(raylet, signal.SIGKILL)  # the node is lost with the game it is playing
                killed = True
            time.sleep(0.02)
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pytest.fail(f"the tournament hung for {COMMAND_TIMEOUT:.0f} s after its worker node was lost")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert killed, "no game ran on the worker node before the tournament ended: nothing was lost"
    assert proc.returncode == 0, err_file.read_text()[-3000:]
    # Ray's own logs stay out of the user's terminal, the lost node's included
    assert not [line for line in err_file.read_text().splitlines() if "raylet" in line.lower()]
    assert seen and all(is_loopback(a) for a in seen), f"the driver listened on {sorted(seen)}"
    assert main([*common, "--db", str(tmp_path / "pool.db")]) == 0
    capsys.readouterr()
    on_ray_games, pooled = tournament_games(tmp_path / "ray.db"), tournament_games(tmp_path / "pool.db")
    assert [g[0] for g in on_ray_games] == list(range(3 * 8))  # every game once
    assert on_ray_games == pooled
