"""Fairness of the web app: one client's flood of engine games against another client's moves.

Starts `sumito serve` in a subprocess on a free port (temporary databases). Client B (address
127.0.0.3) plays a few moves against each victim spec (a person against ``greedy``,
``engine:depth=4`` and ``engine:time=1``), timing each computer reply from the move's answer until
the reply is visible: first on an idle server (unloaded), then while client A (address 127.0.0.2,
its games spread over ``--flood-tokens`` owner tokens) floods the server with engine-against-engine
watch games at speed 0, all thinking at once (loaded). It prints both side by side; the goal is
loaded ≤ max(2 × unloaded, unloaded + 2 s), since B's replies are quick moves, which find the worker
that A's watch games may not take, and go first whatever A has queued under however many tokens
(:mod:`sumito.web.scheduler`). The two addresses
are loopback ones, so this runs on Linux (where all of 127.0.0.0/8 is this machine).

The server is started with ``--max-games``/``--max-queued`` high enough for the whole flood (as
the tester's report: 100 games thinking), so that the scheduler, not the caps, keeps B's moves
quick; ``--default-caps`` keeps the defaults instead, and the flood is then mostly 429s.

    python bench/bench_web_fairness.py                                 # 100 flood games of engine:time=30
    python bench/bench_web_fairness.py --flood-games 20 --moves 3      # smaller
    python bench/bench_web_fairness.py --flood-spec engine:time=1      # a flood of short moves
    python bench/bench_web_fairness.py --flood-tokens 200              # A's games under 200 tokens

The clients run in this process on the same machine as the server: on a small, busy machine they
and the flood's searches compete for the cores, so the loaded figures are an upper bound.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from bench_web import start_server, wait_for_idle_workers

FLOODER = "bench-flooding-client-A"
VICTIM = "bench-victim-client-B"
#: the addresses A and B connect from: each is one client to the server, whatever tokens it sends
FLOOD_ADDRESS, VICTIM_ADDRESS = "127.0.0.2", "127.0.0.3"


def from_address(url: str, address: str, **options) -> httpx.Client:
    """A client of ``url`` whose connections come from the loopback address ``address``."""
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address), **options)


def reply_times(url: str, spec: str, moves: int, rng: random.Random) -> tuple[list[float], str | None]:
    """Seconds from each of B's moves to ``spec``'s reply, in a fresh game; and the game's error, if any."""
    owner = {"X-Sumito-Token": VICTIM}
    with from_address(url, VICTIM_ADDRESS, timeout=120, headers=owner) as client:
        r = client.post("/api/games", json={"black": "human", "white": spec, "layout": "standard"})
        r.raise_for_status()
        game = f"/api/games/{r.json()['id']}"
        times: list[float] = []
        try:
            for _ in range(moves):
                legal = client.get(game + "/legal").json()
                after = client.post(game + "/moves", json={"move": rng.choice(legal)["notation"]}).json()
                t0 = time.perf_counter()
                while after["thinking"]:
                    after = client.get(game, params={"wait": 10, "ply": after["ply"]}).json()
                times.append(time.perf_counter() - t0)
                if after["error"] or after["outcome"]:
                    return times, after["error"]
        finally:
            client.delete(game)
    return times, None


def flood(url: str, spec: str, games: int, tokens: int) -> tuple[list[str], dict[int, int], float]:
    """Client A creates ``games`` watch games of ``spec`` against itself as fast as it can, under
    ``tokens`` owner tokens in turn: the ids made, the count of each answer's status, and the seconds
    it took."""
    made: list[str] = []
    statuses: dict[int, int] = {}
    t0 = time.perf_counter()
    with from_address(url, FLOOD_ADDRESS, timeout=60) as client:
        for k in range(games):
            owner = {"X-Sumito-Token": f"{FLOODER}-{k % tokens:04d}"}
            r = client.post("/api/games", json={"black": spec, "white": spec, "speed": 0}, headers=owner)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code == 201:
                made.append(r.json()["id"])
    return made, statuses, time.perf_counter() - t0


def thinking(url: str, made: list[str]) -> int:
    """A's games whose computer is thinking now (``made``: their ids)."""
    with from_address(url, FLOOD_ADDRESS, timeout=60) as client:
        return sum(client.get(f"/api/games/{game}").json()["thinking"] for game in made)


def respelled(spec: str) -> str:
    """The same engine under another spelling (its default table size written out): a worker keeps a
    player per spec, so B's loaded moves, the same as its unloaded ones, start from an empty table."""
    if not spec.startswith("engine") or "hash=" in spec:
        return spec
    return spec + (",hash=32" if ":" in spec else ":hash=32")


def summary(xs: list[float]) -> str:
    if not xs:
        return "      -"
    return f"{statistics.median(xs):6.2f} s (max {max(xs):5.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--victims", default="greedy,engine:depth=4,engine:time=1", help="B's opponents, comma-separated"
    )
    parser.add_argument("--moves", type=int, default=4, help="B's timed moves against each victim spec, each phase")
    parser.add_argument("--flood-spec", default="engine:time=30", help="the engine of A's watch games")
    parser.add_argument("--flood-games", type=int, default=100, help="watch games A creates")
    parser.add_argument("--flood-tokens", type=int, default=20, help="owner tokens A spreads its games over")
    parser.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    parser.add_argument("--default-caps", action="store_true", help="keep --max-games/--max-queued at their defaults")
    parser.add_argument("--settle", type=float, default=300, help="at most this long for the workers to warm up")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    victims = [s.strip() for s in args.victims.split(",") if s.strip()]
    caps = [] if args.default_caps else ["--max-games", str(args.flood_games + 10), "--max-queued", "1000"]
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp), args.workers, caps)
        try:
            settled = wait_for_idle_workers(proc.pid, args.settle)
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            print(
                f"server at {url}, {args.workers} workers, warm after {settled:.1f} s; {os.cpu_count()} cores, "
                f"load average {load:.1f} before the run"
            )
            for spec in victims:  # unmeasured: waits for a worker that is still loading its kernels
                reply_times(url, spec, 1, random.Random(args.seed + 100))
            unloaded = {spec: reply_times(url, spec, args.moves, random.Random(args.seed)) for spec in victims}
            made, statuses, took = flood(url, args.flood_spec, args.flood_games, max(1, args.flood_tokens))
            answered = ", ".join(f"{n} × {code}" for code, n in sorted(statuses.items()))
            time.sleep(2.0)  # the flood's first searches are under way, the rest queued
            busy = thinking(url, made)
            print(
                f"flood: A asked for {args.flood_games} watch games of {args.flood_spec} under "
                f"{args.flood_tokens} tokens in {took:.1f} s "
                f"({answered}); {busy} thinking"
            )
            loaded = {spec: reply_times(url, respelled(spec), args.moves, random.Random(args.seed)) for spec in victims}
            still = thinking(url, made)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(f"A's games thinking after B's loaded moves: {still}")
    print(
        f"{'B against':22} | {'unloaded: median (max)':>24} | {'loaded: median (max)':>24} | loaded / unloaded "
        "| within max(2x, +2 s)"
    )
    for spec in victims:
        (quiet, e1), (busy_times, e2) = unloaded[spec], loaded[spec]
        ratio = statistics.median(busy_times) / statistics.median(quiet) if quiet and busy_times else float("nan")
        bound = max(2 * statistics.median(quiet), statistics.median(quiet) + 2) if quiet else float("nan")
        within = "yes" if busy_times and max(busy_times) <= bound else "no"
        print(f"{spec:22} | {summary(quiet):>24} | {summary(busy_times):>24} | {ratio:17.2f} | {within}")
        for phase, error in (("unloaded", e1), ("loaded", e2)):
            if error:
                print(f"    {phase}: the game stopped with an error: {error}")


if __name__ == "__main__":
    main()
