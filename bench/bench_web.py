"""Load test of the web app: many concurrent games against one `sumito serve` on localhost.

Starts `sumito serve` in a subprocess on a free port (temporary databases), then plays games the
way the page does: each client (its own loopback address and owner token, as each browser on its
own machine has) creates a game (a
person against a computer, standard layout), and on each of its turns reads the state, fetches
the legal moves, plays a random one, and waits for the computer's reply
(``GET /api/games/{id}?wait=…&ply=…``). It does that first with one
client (the baseline), then with many at once, and prints latency percentiles side by side:

* ``state``: a plain ``GET /api/games/{id}``;
* ``legal``: ``GET /api/games/{id}/legal``;
* ``move``: ``POST /api/games/{id}/moves`` (includes writing the game to SQLite);
* ``reply``: from the move's answer until the computer's reply is visible (its thinking time,
  the wait for a free worker process, and the request).

    python bench/bench_web.py                      # 50 clients against random and greedy, 120 plies a game
    python bench/bench_web.py --clients 100 --plies 60 --opponents engine:time=0.1
    python bench/bench_web.py --client-processes 4       # where the clients need more than one core

The clients run in this process (asyncio + httpx) on the same machine as the server, so on a
small machine they compete with it for the cores: the figures are an upper bound on latency.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import httpx

KINDS = ("state", "legal", "move", "reply")


def _stat(pid: int | str) -> tuple[int, float]:
    """Parent pid and CPU seconds (user + system) of a process, from Linux's ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # after "pid (name)"
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds used so far by the server ``pid`` and by its worker processes (NaN without /proc)."""
    try:
        own = _stat(pid)[1]
    except (OSError, ValueError, AttributeError):
        return float("nan"), float("nan")
    workers = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent, used = _stat(entry.name)
            except (OSError, ValueError, IndexError):
                continue
            if parent == pid:
                workers += used
    return own, workers


def start_server(folder: Path, workers: int, extra: Sequence[str] = ()) -> tuple[subprocess.Popen, str]:
    """`sumito serve` on a free port with databases in ``folder`` (``extra``: more options); its address."""
    env = {**os.environ, "XDG_DATA_HOME": str(folder)}
    cmd = [sys.executable, "-m", "sumito.cli", "serve", "--port", "0", "--workers", str(workers)]
    cmd += ["--db", str(folder / "web.sqlite"), "--archive", str(folder / "games.sqlite"), *extra]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"running at (\S+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    url = match.group(1)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url + "api/presets", timeout=5).raise_for_status()
            return proc, url
        except httpx.TransportError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("the server did not answer within 60 s") from None
            time.sleep(0.1)


def wait_for_idle_workers(server: int, limit: float) -> float:
    """Wait until the server's workers stop using CPU (their warm-up is over), at most ``limit`` s."""
    t0 = time.perf_counter()
    before = cpu_seconds(server)[1]
    while time.perf_counter() - t0 < limit:
        time.sleep(1.0)
        now = cpu_seconds(server)[1]
        if not now - before > 0.05:  # NaN (no /proc) stops at once
            break
        before = now
    return time.perf_counter() - t0


async def play_one(
    client: httpx.AsyncClient,
    opponent: str,
    plies: int,
    rng: random.Random,
    times: dict[str, list[float]],
    token: str | None = None,
) -> str:
    """One game as the page plays it; returns 'finished', 'capped' or what went wrong."""

    async def timed(kind: str, method: str, url: str, **kw) -> httpx.Response:
        t0 = time.perf_counter()
        r = await client.request(method, url, **kw)
        times[kind].append(time.perf_counter() - t0)
        if r.status_code >= 400:
            raise RuntimeError(f"{method} {url}: {r.status_code} {r.text}")
        return r

    # the client's own token: without one, every client on this machine would count as one (its address)
    sent = {"X-Sumito-Token": token} if token else {}
    r = await client.post("/api/games", json={"black": "human", "white": opponent, "layout": "standard"}, headers=sent)
    if r.status_code != 201:
        return f"create failed: {r.status_code} {r.text}"
    game = r.json()["id"]
    owner = {"X-Sumito-Token": r.json()["token"]}  # moves need the game's owner token, as the page sends it
    url = f"/api/games/{game}"
    try:
        while True:
            state = (await timed("state", "GET", url)).json()
            if state["outcome"] is not None:
                return "finished"
            if state["ply"] >= plies:
                return "capped"
            moves = (await timed("legal", "GET", url + "/legal")).json()
            move = rng.choice(moves)["notation"]
            after = (await timed("move", "POST", url + "/moves", json={"move": move}, headers=owner)).json()
            t0 = time.perf_counter()
            while after["thinking"]:
                after = (await client.get(url, params={"wait": 10, "ply": after["ply"]})).json()
            times["reply"].append(time.perf_counter() - t0)
            if after["error"]:
                return f"computer error: {after['error']}"
    except (RuntimeError, httpx.HTTPError) as exc:
        return f"failed: {exc}"


async def _client_share(
    url: str, first: int, clients: int, games: int, opponents: list[str], plies: int, seed: int
) -> dict:
    """Clients ``first`` … ``first + clients - 1`` at once in this process, each playing ``games`` games in turn."""
    times: dict[str, list[float]] = defaultdict(list)
    limits = httpx.Limits(max_connections=10, max_keepalive_connections=10)

    async def one_client(i: int) -> list[str]:
        rng = random.Random(seed * 1000 + i)
        token = f"bench-client-{seed}-{i:06d}"
        # each client connects from an address of its own, as browsers on other machines do: the server's
        # caps and fair shares are per address
        transport = httpx.AsyncHTTPTransport(local_address=client_address(i), limits=limits)
        async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as client:
            return [
                await play_one(client, opponents[(i + k) % len(opponents)], plies, rng, times, token)
                for k in range(games)
            ]

    c0 = time.process_time()
    per_client = await asyncio.gather(*map(one_client, range(first, first + clients)))
    endings = [e for client_endings in per_client for e in client_endings]
    return {"times": dict(times), "endings": endings, "cpu": time.process_time() - c0}


def client_address(i: int) -> str:
    """Client ``i``'s loopback address: 127.0.0.2, 127.0.0.3, … (all of 127.0.0.0/8 is this machine on Linux)."""
    return f"127.{(i + 2) // 65536 % 256}.{(i + 2) // 256 % 256}.{(i + 2) % 256}"


def _run_share(job: tuple) -> dict:
    return asyncio.run(_client_share(*job))


def run_clients(
    url: str, server: int, clients: int, games: int, opponents: list[str], plies: int, seed: int, processes: int = 1
) -> dict:
    """``clients`` clients at once (spread over ``processes`` client processes), ``games`` games each."""
    processes = max(1, min(processes, clients))
    shares = [clients // processes + (k < clients % processes) for k in range(processes)]
    jobs = [(url, sum(shares[:k]), n, games, opponents, plies, seed) for k, n in enumerate(shares)]
    t0, (s0, w0) = time.perf_counter(), cpu_seconds(server)
    if processes == 1:
        results = [_run_share(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            results = pool.map(_run_share, jobs)
    wall, (s1, w1) = time.perf_counter() - t0, cpu_seconds(server)
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for kind, xs in r["times"].items():
            times[kind].extend(xs)
    cpu = {"server": s1 - s0, "workers": w1 - w0, "clients": sum(r["cpu"] for r in results)}
    endings = [e for r in results for e in r["endings"]]
    return {"times": times, "endings": endings, "wall": wall, "clients": clients, "cpu": cpu, "processes": processes}


def percentiles(xs: list[float]) -> tuple[float, float, float, float]:
    if not xs:
        return (float("nan"),) * 4  # type: ignore[return-value]
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return q[49], q[89], q[98], max(xs)


def ms(x: float) -> str:
    return f"{x * 1000:8.1f}"


def report(runs: list[dict]) -> None:
    head = " | ".join(f"{r['clients']:>3} client(s): p50 / p90 / p99 / max (ms)".rjust(44) for r in runs)
    print(f"{'request':8} | {'':>7} | {head}")
    for kind in KINDS:
        cells = []
        count = len(runs[-1]["times"][kind])
        for r in runs:
            p50, p90, p99, top = percentiles(r["times"][kind])
            cells.append(f"{ms(p50)} {ms(p90)} {ms(p99)} {ms(top)}".rjust(44))
        print(f"{kind:8} | {count:7} | " + " | ".join(cells))
    for r in runs:
        endings: dict[str, int] = defaultdict(int)
        for e in r["endings"]:
            endings[e] += 1
        requests = sum(len(v) for k, v in r["times"].items() if k != "reply")
        print(
            f"{r['clients']} client(s): {r['wall']:.1f} s, {requests} timed requests ({requests / r['wall']:.0f}/s), "
            f"games: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items()))
        )
        cpu = r["cpu"]
        print(
            "    CPU seconds: server " + f"{cpu['server']:.1f}, its workers {cpu['workers']:.1f}, "
            f"the clients {cpu['clients']:.1f} in {r['processes']} process(es) "
            f"(of {r['wall']:.1f} s wall on {os.cpu_count()} cores)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--plies", type=int, default=120, help="stop a game after this many plies")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated player specs, in turn")
    parser.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--client-processes", type=int, default=1, help="spread the clients over K processes (given cores to spare)"
    )
    parser.add_argument("--settle", type=float, default=90, help="at most this long for the workers to warm up")
    args = parser.parse_args()
    opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc, url = start_server(Path(tmp), args.workers)
        ready = time.perf_counter() - t0
        print(f"server at {url} ready in {ready:.1f} s; {os.cpu_count()} cores; opponents {', '.join(opponents)}")
        settled = wait_for_idle_workers(proc.pid, args.settle)  # they load every player's kernels as they start
        print(f"workers warm after {settled:.1f} s")
        try:
            baseline = run_clients(url, proc.pid, 1, len(opponents), opponents, args.plies, args.seed)
            loaded = run_clients(
                url, proc.pid, args.clients, 1, opponents, args.plies, args.seed + 1, args.client_processes
            )
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    report([baseline, loaded])


if __name__ == "__main__":
    main()
