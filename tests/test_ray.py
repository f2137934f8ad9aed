"""The Ray backend (``--backend ray``): the same games as the process pool, game by game; a worker killed
in the middle of a run is replaced and its item run again, each result counted once; an item's own error
is raised, not retried; closing the run (or Ctrl-C) cancels what is pending; the command-line errors.

One local Ray instance serves the whole module (starting one costs seconds): the executors and the
commands below find it running and use it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'sumito[ray]'")

import sumito.arena.executor as executor_module  # noqa: E402
from sumito.arena.errors import ArenaError  # noqa: E402
from sumito.arena.executor import RayExecutor, check_cluster, make_executor  # noqa: E402
from sumito.arena.match import ArenaSettings, play_game, schedule  # noqa: E402
from sumito.cli import main  # noqa: E402
from sumito.games.abalone import DrawRules  # noqa: E402
from sumito.learn.actors import ActorLearnerError, check_actor_cpus  # noqa: E402
from sumito.procs import descendants  # noqa: E402

from helpers import start_local_ray  # noqa: E402

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


@pytest.fixture(scope="module", autouse=True)
def ray_instance():
    with pytest.MonkeyPatch.context() as mp:
        for name in ("SUMITO_RAY_ADDRESS", "RAY_ADDRESS"):  # a local instance, whatever the environment names
            mp.delenv(name, raising=False)
        if ray.is_initialized():  # left over by another module
            ray.shutdown()
        # this module's work functions go to the workers by value, as a script's do (they cannot import tests/)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        start_local_ray(ray, num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield ray
        finally:
            ray.shutdown()
            ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def run_all(executor, fn, items) -> list[tuple[int, object]]:
    """Every ``(index, result)`` the run yields, in the order it yields them."""
    return list(executor.run(fn, items))


# ----------------------------------------------------------------------------- the same games
def games_of(executor) -> list[tuple]:
    settings = ArenaSettings.from_layout("mini", seed=11, opening_plies=2, rules=DrawRules(max_plies=60, repetitions=3))
    tasks = schedule(["greedy", "heuristic:depth=1"], 6, settings)
    pairs = run_all(executor, play_game, tasks)
    assert sorted(i for i, _ in pairs) == list(range(len(tasks)))  # each game once
    return [(r.moves, r.winner, r.reason, r.final) for _, r in sorted(pairs, key=lambda p: p[0])]


def test_the_same_seed_gives_the_same_games_on_every_backend():
    ray_executor = make_executor(2, backend="ray")
    assert isinstance(ray_executor, RayExecutor) and ray_executor.workers == 2
    inline, pooled, on_ray = games_of(make_executor(1)), games_of(make_executor(2)), games_of(ray_executor)
    assert inline == pooled == on_ray
    assert len({moves for moves, *_ in inline}) > 1  # the openings differ: not one game six times


def match_lines(capsys, backend: str) -> list[str]:
    code = main(["match", "greedy", "heuristic:depth=1", "-n", "4", "--layout", "mini", "--seed", "5", "--no-db",
                 "--max-plies", "60", "--workers", "2", "--quiet", "--backend", backend])
    out, err = capsys.readouterr()
    assert code == 0, err
    # the score, the colours, the endings and the game lengths (not the times per move)
    keep = ("score of A", "Elo A - B", "A by colour", "endings", "game length", "settings")
    return [line for line in out.splitlines() if line.startswith(keep)]


def test_sumito_match_on_ray_reports_the_same_score(capsys):
    on_ray, pooled = match_lines(capsys, "ray"), match_lines(capsys, "process")
    assert len(on_ray) == 6 and on_ray == pooled


def test_bg_match_on_ray_gives_the_same_results(capsys):
    def summary(*extra: str) -> dict:
        code = main(["bg", "match", "pubeval", "random", "-n", "30", "--seed", "4", "--json", *extra])
        out, err = capsys.readouterr()
        assert code == 0, err
        return json.loads(out)

    # 30 games: two chunks, played by two Ray tasks (and, below, one after another in this process)
    assert summary("--backend", "ray", "--workers", "2") == summary()


def timed(item: int) -> tuple[float, float]:
    start = time.time()
    time.sleep(0.3)
    return start, time.time()


def test_workers_bounds_the_items_running_at_once():
    # one worker on a two-CPU instance: one item at a time, as a pool of one process would
    spans = sorted(span for _, span in run_all(RayExecutor(1), timed, range(3)))
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))


# ----------------------------------------------------------------------------- faults
def dies_once(item: tuple[int, str]) -> int:
    """Item 3 kills its worker process the first time it is run (a marker file says it was)."""
    index, folder = item
    marker = Path(folder) / "died"
    if index == 3 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    (Path(folder) / f"ran-{index}-{os.getpid()}").touch()
    return index * index


def test_a_killed_worker_is_replaced_and_its_item_counted_once(tmp_path):
    items = [(i, str(tmp_path)) for i in range(8)]
    pairs = run_all(RayExecutor(2), dies_once, items)
    assert (tmp_path / "died").exists()  # the worker did die
    assert sorted(i for i, _ in pairs) == list(range(8))  # every item yielded, each exactly once
    assert dict(pairs) == {i: i * i for i in range(8)}
    assert len(list(tmp_path.glob("ran-3-*"))) == 1  # item 3 finished once, on its second attempt


class BadItem(ValueError):
    pass


def raises_on_two(item: tuple[int, str]) -> int:
    index, folder = item
    (Path(folder) / f"try-{index}-{time.monotonic_ns()}").touch()
    if index == 2:
        raise BadItem(f"item {index} is bad")
    return index


def test_an_items_own_error_is_raised_and_not_retried(tmp_path):
    with pytest.raises(BadItem, match="item 2 is bad"):
        run_all(RayExecutor(2), raises_on_two, [(i, str(tmp_path)) for i in range(4)])
    assert len(list(tmp_path.glob("try-2-*"))) == 1  # run once: an ordinary exception is the item's answer


# ----------------------------------------------------------------------------- stopping early
def slow(item: tuple[int, str]) -> int:
    index, folder = item
    (Path(folder) / f"start-{index}").touch()
    time.sleep(0.3 if index == 0 else 2.0)
    (Path(folder) / f"end-{index}").touch()
    return index


@pytest.mark.parametrize("how", ["close", "ctrl-c"])
def test_stopping_the_run_cancels_the_pending_tasks(tmp_path, how):
    items = [(i, str(tmp_path)) for i in range(20)]  # 20 items of 2 s on 2 CPUs: 20 s if nothing were stopped
    executor = RayExecutor(2)
    stream = executor.run(slow, items)
    first, _ = next(stream)  # item 0, unless its worker was slow to start
    t0 = time.perf_counter()
    if how == "close":
        stream.close()
    else:
        with pytest.raises(KeyboardInterrupt):
            stream.throw(KeyboardInterrupt)
    assert time.perf_counter() - t0 < 4.0  # the tasks cancelled and gone (the executor waits at most 3 s)
    time.sleep(2.5)  # longer than an item takes
    # only the items in flight at the stop (twice the workers) ever started, and they were stopped: none
    # finished but the first
    in_flight = range(2 * executor.workers)
    assert {p.name for p in tmp_path.glob("start-*")} <= {f"start-{i}" for i in in_flight}
    assert {p.name for p in tmp_path.glob("end-*")} == {f"end-{first}"}


# ----------------------------------------------------------------------------- the command line
def test_backend_ray_without_ray_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if it were not installed
    code = main(["match", "random", "random", "-n", "2", "--layout", "mini", "--no-db", "--backend", "ray"])
    _, err = capsys.readouterr()
    assert code == 2 and err == "sumito: error: --backend ray needs Ray: pip install 'sumito[ray]'\n"
    with pytest.raises(ArenaError, match=r"pip install 'sumito\[ray\]'"):
        make_executor(2, backend="ray")


def test_an_address_that_takes_no_connection_is_a_quick_one_line_error():
    from sumito.arena.executor import init_ray

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    t0 = time.perf_counter()
    with pytest.raises(ArenaError, match=rf"cannot reach the Ray cluster at 127.0.0.1:{port}: .*ray start --head"):
        init_ray(ray, f"127.0.0.1:{port}", None)  # (Ray itself would retry for minutes)
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "random", "random", "-n", "2", "--layout", "mini", "--no-db"],
        ["tournament", "random", "greedy", "-n", "2", "--layout", "mini", "--no-db"],
        ["bg", "match", "random", "random", "-n", "2"],
    ],
)
def test_address_needs_backend_ray_and_a_bogus_backend_is_a_usage_error(capsys, argv):
    code = main([*argv, "--address", "10.0.0.5:6379"])
    _, err = capsys.readouterr()
    assert code == 2 and err == "sumito: error: --address names a Ray cluster: it needs --backend ray\n"
    code = main([*argv, "--backend", "bogus"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "argument --backend: invalid choice: 'bogus'" in err


def test_train_takes_the_backend_options(capsys, tmp_path):
    code = main(["train", "--games", "0", "--out", str(tmp_path / "t"), "--address", "10.0.0.5:6379"])
    _, err = capsys.readouterr()
    assert code == 2 and "--address names a Ray cluster: it needs --backend ray" in err
    # a cluster needs an absolute run folder (every node reads the networks from it)
    code = main(["train", "--games", "0", "--out", "runs/t", "--backend", "ray", "--address", "10.0.0.5:6379"])
    _, err = capsys.readouterr()
    assert code == 2 and "on a Ray cluster give an absolute path" in err


# ----------------------------------------------------------------------------- experiments
def test_a_learning_run_on_ray_gives_the_rows_of_a_local_one(tmp_path):
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import learning_curves as lc
    finally:
        sys.path.remove(str(EXPERIMENTS))
    # the script's functions and its Arm class go by value, as they do when it runs as __main__
    ray.cloudpickle.register_pickle_by_value(lc)
    try:
        arm = lc.Arm("tiny", dict(encoding="abalearn2", regime="self", max_plies=30))
        jobs = [("test", arm, seed, {}, (2,), tmp_path / f"ray-{seed}", ("random",), 2, "td:net={net}")
                for seed in (7, 8)]
        on_ray = lc._map(lc.run_arm, jobs, make_executor(2, backend="ray"))
    finally:
        ray.cloudpickle.unregister_pickle_by_value(lc)
    here = [lc.run_arm((*job[:5], tmp_path / f"here-{job[2]}", *job[6:])) for job in jobs]

    def strip(rows: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]

    assert [strip(rows) for rows in on_ray] == [strip(rows) for rows in here]
    assert all((tmp_path / f"ray-{seed}" / "rows.csv").exists() for seed in (7, 8))  # written by the Ray workers


# ----------------------------------------------------------------------------- actors and evaluation tasks
def test_train_with_two_actors_and_evaluation_finishes_on_two_cpus(capsys, tmp_path):
    # the module's instance has 2 CPUs: two actors and the evaluation tasks (one CPU each) must both fit
    out = tmp_path / "run"
    code = main(["train", "--games", "4", "--out", str(out), "--actors", "2", "--backend", "ray", "--eval-every", "2",
                 "--eval-games", "2", "--eval-opponent", "random", "--set", "layout=mini", "--set", "max_plies=30",
                 "--quiet"])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "actors: 4 games applied" in err
    rows = (out / "curve.csv").read_text().splitlines()
    assert len(rows) == 3  # the header and the evaluations after games 2 and 4


def test_actors_reserve_no_cpu_unless_asked_and_a_reservation_that_could_starve_evaluation_is_refused():
    # by default an actor holds a process, not a CPU: evaluation tasks always find the cluster's CPUs free
    assert check_actor_cpus(2, None, [1.0, 1.0]) == 0.0
    assert check_actor_cpus(64, None, [1.0]) == 0.0
    # two actors of half a CPU on two nodes of one CPU could leave half a CPU on each node: refused in one line
    with pytest.raises(ActorLearnerError, match=r"could leave no node .* a whole CPU") as info:
        check_actor_cpus(2, 0.5, [1.0, 1.0])
    assert "\n" not in str(info.value)
    assert check_actor_cpus(2, 0.5, [4.0, 1.0]) == 0.5  # all of them on the big node still leave it 3 CPUs
    with pytest.raises(ActorLearnerError, match="no node with a whole CPU"):
        check_actor_cpus(1, None, [0.5, 0.0])
    with pytest.raises(ActorLearnerError, match="from 0 to 1"):
        check_actor_cpus(1, 2.0, [8.0])


def test_a_cluster_without_a_whole_cpu_on_any_node_is_refused_at_once(monkeypatch):
    monkeypatch.setattr(executor_module, "largest_node_cpus", lambda ray: 0.0)
    with pytest.raises(ArenaError, match="has no node with a whole CPU"):
        RayExecutor(2)


# ----------------------------------------------------------------------------- --address: causes named quickly
def test_an_address_that_is_not_a_ray_cluster_is_named_so_within_the_timeout():
    with socket.socket() as server:  # takes connections and never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        stop, accepted = threading.Event(), []

        def accept() -> None:
            while not stop.is_set():
                with contextlib.suppress(OSError):
                    accepted.append(server.accept()[0])

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        t0 = time.perf_counter()
        try:
            with pytest.raises(ArenaError, match=r"does not answer as a Ray .* cluster within 1 s") as info:
                check_cluster(ray, f"127.0.0.1:{server.getsockname()[1]}", timeout=1.0)
        finally:
            stop.set()
            thread.join()
            for sock in accepted:
                sock.close()
    assert time.perf_counter() - t0 < 4.0  # Ray's own client would try for 10 s more
    assert "\n" not in str(info.value)


# ----------------------------------------------------------------------------- a driver killed with kill -9
DRIVER = """
import sys
import ray
from sumito.arena.executor import init_ray
init_ray(ray, None, 1)
print("ready", flush=True)
sys.stdin.read()
"""


def test_a_local_instance_dies_with_its_driver_killed_with_kill_9():
    """Ray's GCS, raylet and workers die with the driver (kernel fate-sharing); its dashboard and runtime-env
    agents used to stay a minute or more, reporting the raylet's death to the dead GCS: the reaper kills them."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "SUMITO_RAY_ADDRESS")}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    started: list[tuple[int, int]] = []
    try:
        assert driver.stdout.readline().strip() == "ready"
        started = descendants(driver.pid)
        names = {Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] for pid, _ in started}
        assert {b"ray::DashboardAgent", b"ray::RuntimeEnvAgent"} <= names  # the agents that used to linger
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and alive(started):
            time.sleep(0.1)
        assert not alive(started), f"still running 10 s after the driver's kill -9: {alive(started)}"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for pid, start in started:  # whatever is left of this test's instance
            if start_time(pid) == start:
                os.kill(pid, signal.SIGKILL)


def start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return int(stat[stat.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def alive(processes: list[tuple[int, int]]) -> list[str]:
    """The processes of ``processes`` still running (not zombies), by name."""
    names = []
    for pid, start in processes:
        if start_time(pid) != start:
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            state = stat[stat.rindex(b")") + 2:].split()[0]
            if state != b"Z":
                names.append(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace"))
        except (OSError, ValueError, IndexError):
            continue
    return names
