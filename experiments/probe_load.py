"""Load and abuse that a careless or hostile user can cause, and whether Sumito holds.

    python experiments/probe_load.py [--count 10] [--file-rounds 2] [--seed 7] [--kinds flood,...,stop]
        [--attackers 8,20] [--requests 40] [--spread 30] [--minutes 10]

* **flood** — ``sumito serve --workers 2``: one address (127.0.0.2) floods it with watch games of
  ``engine:time=30`` under 2, 20 and 200 owner tokens in turn, as many as its caps allow; another address
  (127.0.0.3) times a person's reply from ``greedy``, ``engine:depth=4`` and ``engine:time=1``, first
  unloaded, then ``--count`` times under each flood. Held: the reply within max(2 × unloaded, unloaded + 2 s)
  and no 503.
* **addresses** — ``sumito serve --workers 2``: 8, then 20 addresses (``--attackers``; 127.0.0.10 on) each
  at its caps of ``engine:time=30`` watch games; another address (127.0.0.3) times a person's reply from
  ``greedy``, ``perfect`` (mini board), ``engine:depth=4`` and ``engine:time=1``, unloaded, then ``--count``
  times each under the attack. Held: each reply within max(2 × unloaded, unloaded + 2 s). The replies' times
  follow the table. ``perfect`` needs the mini board's table: where it is not cached, the probe solves it once
  into its scratch folder (about 11 s on two cores).
* **addresses-idle** — 8, then 20 addresses each opening connections that never send a request, as many as
  the server keeps, and another as soon as one is closed (refused, closed for a newcomer or past the header
  timeout); another address makes ``--requests`` requests over ``--spread`` seconds. Held: each answered 200;
  at least 95 % answered is the bar the docs quote.
* **idle** — 600 connections from one address that never send a request, then ``--count`` requests from
  another address. Held: each answered 200 (never 503), and every idle connection closed by the server
  within the header timeout + 2 s.
* **slow** — ``--count`` requests sent a byte every 50 ms. Held: the server closes the connection within
  the header timeout + 2 s.
* **resume** — a tiny ``nnue gen`` run, resumed ``--count`` times with one setting changed (``--chunk``,
  ``--games``, ``--player``, ``--max-plies``, ``--seed``, in turn). Held: exit status non-zero, a one-line
  error naming the setting, and the run's files unchanged.
* **files** — ``--file-rounds`` hostile files for each reader (a network for ``engine:nnue=``, ``td:net=``, weights
  for ``alphalone:weights=``, an NNUE data chunk, a run's ``state.json``, an SPRT journal): JSON nested
  100,000 deep, weights of 1e30, arrays of the wrong shape, truncated files. Held: a one-line error, exit
  status non-zero, no traceback.
* **memory** — ``sumito serve --workers 2``: 10 addresses (127.0.0.60 on) × 4 owner tokens, each token in
  turn deleting its last game and making another with engine specs nobody used before (hash sizes, depth or
  time, contempt, the shipped networks or none; five layouts), a watch game or a person's game whose first
  move it plays, a hint now and then, for ``--minutes`` (default 10); each worker's RSS sampled every 5 s.
  Held: every sample within the documented per-worker figure (``sumito.web.limits.WORKER_MEMORY_MB``), and
  the last third's peak within 5 % of the middle third's (the workers', the server's own). A table of the
  memory over time follows.
* **stop** — ``sumito engine`` with ``Threads 64`` and ``Hash 4096``: ``go infinite``, then ``stop`` after
  0.2–1 s, ``--count`` times. Held: ``bestmove`` within 1 s of ``stop``.

The script prints one Markdown table row per probe kind (the format of ``probe_kills.py``) and each
failure's details on stderr; docs/reliability.md's figures come from it.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import random
import selectors
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
from probe_kills import ENV, Proc, Tally, chosen_kinds, report_failures, start_table, tail

from sumito.games.abalone import Position
from sumito.players.perfect import table_on_disk
from sumito.stopping import run_main
from sumito.web.connections import CONNECTIONS_PER_ADDRESS, HEADER_SECONDS
from sumito.web.limits import WORKER_MEMORY_MB

FLOOD, OTHER, IDLE = "127.0.0.2", "127.0.0.3", "127.0.0.4"
REPLIES = ("greedy", "engine:depth=4", "engine:time=1")
FLOOD_SPEC = "engine:time=30"
#: a person's reply from each, and the layout of its game (perfect play needs the mini board's table)
VICTIM_REPLIES = (("greedy", "standard"), ("perfect", "mini"), ("engine:depth=4", "standard"),
                  ("engine:time=1", "standard"))
KINDS = ("flood", "addresses", "addresses-idle", "idle", "slow", "resume", "files", "stop", "memory")
STOP_LIMIT = 1.0  # seconds from `stop` to `bestmove`


# --------------------------------------------------------------------------- a server
class Server:
    """``sumito serve --workers 2`` on a free port of 127.0.0.1, with databases in ``folder``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = Proc(["serve", "--port", "0", "--workers", "2", "--db", "web.sqlite", "--archive",
                          "games.sqlite"], folder)
        if not self.proc.wait_line("running at", 120):
            raise SystemExit(f"the server did not start: {tail(self.proc.stderr)}")
        url = next(w for line in self.proc.out for w in line.split() if w.startswith("http://"))
        host, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
        self.address = (host, int(port))

    def call(self, source: str, method: str, path: str, body: dict | None = None, token: str | None = None,
             ) -> tuple[int, dict]:
        connection = http.client.HTTPConnection(*self.address, timeout=90, source_address=(source, 0))
        try:
            headers = {"Content-Type": "application/json", **({"X-Sumito-Token": token} if token else {})}
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = connection.getresponse()
            data = response.read()
            try:
                answer = json.loads(data) if data else {}
            except ValueError:
                answer = {"detail": data[:200].decode(errors="replace")}
            return response.status, answer
        finally:
            connection.close()

    def wait_for_workers(self) -> None:
        """Until both workers have loaded their kernels (a quick reply comes in under a second)."""
        for _ in range(30):
            seconds, _ = self.reply_seconds("greedy")
            if seconds < 1:
                return

    def reply_seconds(self, spec: str, token: str = "probe-load-other-client-01", layout: str = "standard",
                      ) -> tuple[float, str | None]:
        """Seconds from a person's first move to ``spec``'s reply, from :data:`OTHER`; and what went wrong."""
        new = {"black": "human", "white": spec, "layout": layout}
        status, game = self.call(OTHER, "POST", "/api/games", new, token)
        if status != 201:
            return float("nan"), f"new game: {status} {game}"
        first = Position.start(layout).legal_moves()[0].notation()
        started = time.monotonic()
        try:
            status, state = self.call(OTHER, "POST", f"/api/games/{game['id']}/moves", {"move": first}, token)
            while status == 200 and state["ply"] < 2 and state["error"] is None:
                if time.monotonic() - started > 90:
                    return float("nan"), "no reply in 90 s"
                status, state = self.call(OTHER, "GET", f"/api/games/{game['id']}?wait=5&ply={state['ply']}")
            if status != 200 or state["error"]:
                return float("nan"), f"{status} {state.get('error') or state.get('detail')}"
            return time.monotonic() - started, None
        finally:
            self.call(OTHER, "DELETE", f"/api/games/{game['id']}", token=token)

    def close(self) -> None:
        self.proc.proc.terminate()
        if self.proc.finish(20) is None:
            self.proc.kill_group()


def run_flood(count: int, scratch: Path) -> list[Tally]:
    server = Server(scratch / "flood")
    try:
        server.wait_for_workers()
        unloaded = {}
        for spec in REPLIES:
            times = [server.reply_seconds(spec)[0] for _ in range(3)]
            unloaded[spec] = min(times)
        tallies, made, tokens = [], [], 0
        for flood_tokens in (2, 20, 200):
            tally = Tally(f"another address's reply under one address's flood of {flood_tokens} tokens")
            t0 = time.monotonic()
            while tokens < flood_tokens:
                token = f"probe-flood-token-{tokens:04d}"
                tokens += 1
                for _ in range(4):
                    watch = {"black": FLOOD_SPEC, "white": FLOOD_SPEC}
                    status, answer = server.call(FLOOD, "POST", "/api/games", watch, token)
                    if status == 201:
                        made.append((answer["id"], token))
            for k in range(count):
                spec = REPLIES[k % len(REPLIES)]
                seconds, wrong = server.reply_seconds(spec)
                bound = max(2 * unloaded[spec], unloaded[spec] + 2)
                if wrong is None and seconds > bound:
                    wrong = f"{spec}: {seconds:.2f} s, over {bound:.2f} s (unloaded {unloaded[spec]:.2f} s)"
                tally.record(wrong, f"{flood_tokens} tokens")
            tally.seconds = time.monotonic() - t0
            tallies.append(tally)
        for game, token in made:
            server.call(FLOOD, "DELETE", f"/api/games/{game}", token=token)
        return tallies
    finally:
        server.close()


def attacker_addresses(count: int, first: int = 10) -> list[str]:
    """``count`` loopback addresses from 127.0.0.``first`` on (Linux routes all of 127/8 to ``lo``)."""
    return [f"127.0.0.{first + k}" for k in range(count)]


def ensure_mini_table(scratch: Path) -> None:
    """The mini board's solved table for ``perfect``: the cached one, else solved once into ``scratch``."""
    if table_on_disk(Position.start("mini").variant):
        return
    ENV["SUMITO_SOLVED_DIR"] = str(scratch / "solved")
    print("probe_load: solving the mini board once for `perfect` (about 11 s on two cores)", file=sys.stderr,
          flush=True)
    solve = Proc(["solve"], scratch)
    if solve.finish(900) != 0:
        raise SystemExit(f"sumito solve failed: {tail(solve.stderr)}")


def run_addresses(count: int, attackers: list[int], scratch: Path) -> tuple[list[Tally], list[str]]:
    """Another address's replies under 8 (then 20) addresses at their caps of 30 s watch games: the tallies,
    and the Markdown rows of the replies' times."""
    ensure_mini_table(scratch)
    server = Server(scratch / "addresses")
    tallies, times = [], []
    try:
        server.wait_for_workers()
        unloaded = {}
        for spec, layout in VICTIM_REPLIES:
            took = [server.reply_seconds(spec, layout=layout) for _ in range(3)]
            wrong = next((w for _, w in took if w is not None), None)
            if wrong is not None:
                raise SystemExit(f"unloaded {spec}: {wrong}")
            unloaded[spec] = min(t for t, _ in took)
        made: list[tuple[str, str, str]] = []
        held_by = 0
        for n in attackers:
            tally = Tally(f"another address's reply under {n} addresses at their caps of `{FLOOD_SPEC}` watch games")
            t0 = time.monotonic()
            for k, source in enumerate(attacker_addresses(n)[held_by:], start=held_by):
                token = f"probe-attacker-token-{k:04d}"
                while True:  # as many watch games as the address's caps allow
                    watch = {"black": FLOOD_SPEC, "white": FLOOD_SPEC}
                    status, answer = server.call(source, "POST", "/api/games", watch, token)
                    if status != 201:
                        break
                    made.append((source, answer["id"], token))
            held_by = n
            loaded: dict[str, list[float]] = {spec: [] for spec, _ in VICTIM_REPLIES}
            for k in range(count * len(VICTIM_REPLIES)):
                spec, layout = VICTIM_REPLIES[k % len(VICTIM_REPLIES)]
                seconds, wrong = server.reply_seconds(spec, layout=layout)
                bound = max(2 * unloaded[spec], unloaded[spec] + 2)
                if wrong is None:
                    loaded[spec].append(seconds)
                    if seconds > bound:
                        wrong = f"{n} addresses, {spec}: {seconds:.2f} s, over {bound:.2f} s (unloaded " \
                                f"{unloaded[spec]:.2f} s)"
                tally.record(wrong, spec)
            tally.seconds = time.monotonic() - t0
            tallies.append(tally)
            for spec, _ in VICTIM_REPLIES:
                got = loaded[spec]
                shown = (f"{statistics.median(got):.2f} / {max(got):.2f}" if got else "none")
                times.append(f"| {n} | {spec} | {unloaded[spec]:.2f} | {shown} | "
                             f"{max(2 * unloaded[spec], unloaded[spec] + 2):.2f} |")
        games = len(made)
        for source, game, token in made:
            server.call(source, "DELETE", f"/api/games/{game}", token=token)
        print(f"probe_load: {games} watch games of {held_by} addresses", file=sys.stderr, flush=True)
        return tallies, times
    finally:
        server.close()


class Holders(threading.Thread):
    """Loopback addresses each opening connections that never send a request, as many as the server keeps,
    and more whenever some are closed (closed for a newcomer, past the header timeout): up to 8 an address
    every 0.1 s, one while the server refuses its last ones (a 503)."""

    def __init__(self, server: tuple[str, int], addresses: list[str]) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.addresses = addresses
        self.held = dict.fromkeys(addresses, 0)
        self.burst = dict.fromkeys(addresses, 8)
        self.done = threading.Event()
        self.selector = selectors.DefaultSelector()

    def run(self) -> None:
        try:
            while not self.done.is_set():
                for address in self.addresses:
                    for _ in range(self.burst[address]):
                        try:
                            sock = socket.create_connection(self.server, timeout=2, source_address=(address, 0))
                        except OSError:
                            continue
                        sock.setblocking(False)
                        self.selector.register(sock, selectors.EVENT_READ, address)
                        self.held[address] += 1
                refused = set()
                until = time.monotonic() + 0.1
                while (left := until - time.monotonic()) > 0:
                    for key, _ in self.selector.select(timeout=left):
                        data = b""
                        with contextlib.suppress(OSError):
                            data = key.fileobj.recv(4096)  # a 503, or the end: the server closed it either way
                        if data.startswith(b"HTTP/1.1 503"):
                            refused.add(key.data)
                        self.selector.unregister(key.fileobj)
                        key.fileobj.close()
                        self.held[key.data] -= 1
                self.burst = {address: 1 if address in refused else 8 for address in self.addresses}
        finally:
            for key in list(self.selector.get_map().values()):
                key.fileobj.close()
            self.selector.close()

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=10)


def run_addresses_idle(attackers: list[int], requests: int, spread: float, scratch: Path) -> list[Tally]:
    server = Server(scratch / "addresses-idle")
    tallies = []
    try:
        for n in attackers:
            tally = Tally(f"{n} addresses holding all the idle connections they may; another address's requests")
            holders = Holders(server.address, attacker_addresses(n, first=40))
            holders.start()
            t0 = time.monotonic()
            try:
                time.sleep(2)  # the server fills
                for _ in range(requests):
                    status, answer = server.call(OTHER, "GET", "/api/layouts")
                    tally.record(None if status == 200 else f"{n} addresses: {status} {answer}", "another address")
                    time.sleep(spread / requests)
                held = sum(holders.held.values())
            finally:
                holders.stop()
            tally.seconds = time.monotonic() - t0
            print(f"probe_load: {n} addresses held about {held} connections at the end", file=sys.stderr, flush=True)
            tallies.append(tally)
            time.sleep(HEADER_SECONDS + 1)  # their connections closed before the next round
    finally:
        server.close()
    return tallies


def run_idle(count: int, scratch: Path) -> Tally:
    tally = Tally(f"600 idle connections from one address; another address's requests ({CONNECTIONS_PER_ADDRESS} "
                  "kept, the rest refused)")
    server = Server(scratch / "idle")
    idle: list[socket.socket] = []
    t0 = time.monotonic()
    try:
        for _ in range(600):
            idle.append(socket.create_connection(server.address, timeout=10, source_address=(IDLE, 0)))
        opened = time.monotonic()
        for _ in range(count):
            status, answer = server.call(OTHER, "GET", "/api/layouts")
            tally.record(None if status == 200 else f"{status} {answer}", "another address")
        time.sleep(max(0.0, opened + HEADER_SECONDS + 2 - time.monotonic()))
        still = 0
        for sock in idle:
            sock.settimeout(0.01)
            try:
                while sock.recv(65536):
                    pass
            except TimeoutError:
                still += 1
            except OSError:
                pass
        tally.record(None if still == 0 else f"{still} idle connections still open", "the idle ones closed")
    finally:
        for sock in idle:
            sock.close()
        server.close()
    tally.seconds = time.monotonic() - t0
    return tally


def run_slow(count: int, scratch: Path) -> Tally:
    tally = Tally("a request sent a byte every 50 ms")
    server = Server(scratch / "slow")
    t0 = time.monotonic()
    try:
        for _ in range(count):
            sock = socket.create_connection(server.address, timeout=10, source_address=(OTHER, 0))
            started = time.monotonic()
            closed = None
            try:
                for byte in b"GET /api/layouts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 400:
                    sock.sendall(bytes([byte]))
                    time.sleep(0.05)
                    if time.monotonic() - started > HEADER_SECONDS + 4:
                        break
                sock.settimeout(4)
                if sock.recv(4096) == b"":
                    closed = time.monotonic() - started
            except OSError:
                closed = time.monotonic() - started
            finally:
                sock.close()
            wrong = None if closed is not None and closed <= HEADER_SECONDS + 2 else f"closed after {closed} s"
            tally.record(wrong, "slow request")
    finally:
        server.close()
    tally.seconds = time.monotonic() - t0
    return tally


# --------------------------------------------------------------------------- resumes and files
NNUE_GEN = ["nnue", "gen", "--out", "data", "--games", "6", "--chunk", "2", "--player", "engine:depth=1,threads=1",
            "--workers", "1", "--max-plies", "40", "--seed", "3"]
CHANGES = [("--chunk", "3"), ("--games", "8"), ("--player", "engine:depth=2,threads=1"), ("--max-plies", "50"),
           ("--seed", "4")]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _changed(argv: list[str], option: str, value: str) -> list[str]:
    out = list(argv)
    if option in out:
        out[out.index(option) + 1] = value
    else:
        out += [option, value]
    return out


def run_resume(count: int, scratch: Path) -> Tally:
    tally = Tally("`nnue gen` resumed with a changed setting")
    work = scratch / "resume"
    work.mkdir()
    t0 = time.monotonic()
    first = Proc(NNUE_GEN, work)
    if first.finish(300) != 0:
        raise SystemExit(f"nnue gen failed: {tail(first.stderr)}")
    before = _snapshot(work / "data")
    for k in range(count):
        option, value = CHANGES[k % len(CHANGES)]
        proc = Proc(_changed(NNUE_GEN, option, value), work)
        code = proc.finish(120)
        lines = proc.stderr.strip().splitlines()
        wrong = None
        if code in (0, None):
            wrong = f"{option} {value}: exit status {code}"
        elif len(lines) != 1 or option.lstrip("-") not in lines[0] or "Traceback" in proc.stderr:
            wrong = f"{option} {value}: {tail(proc.stderr)}"
        elif _snapshot(work / "data") != before:
            wrong = f"{option} {value}: the run's files changed"
        tally.record(wrong, option)
    tally.seconds = time.monotonic() - t0
    return tally


def _npz(path: Path, meta: object, **arrays: np.ndarray) -> None:
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def _deep(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


def hostile_files(folder: Path, rng: random.Random) -> list[tuple[str, list[str]]]:
    """(what, the command that reads it) for one of each hostile file, written in ``folder``."""
    shipped = Path(__file__).resolve().parents[1] / "src" / "sumito" / "data"
    out: list[tuple[str, list[str]]] = []
    nnue = next(iter(sorted(shipped.glob("*nnue*.npz"))), None)
    td = next(iter(sorted(p for p in shipped.glob("*.npz") if "nnue" not in p.name)), None)
    for name, source, option in (("nnue", nnue, "nnue"), ("td", td, "net")):
        if source is None:
            continue
        with np.load(source, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        big = {k: (v * 0 + 1e30 if v.dtype.kind == "f" and v.ndim else v) for k, v in arrays.items()}
        np.savez(folder / f"{name}-huge.npz", **big)
        arrays["meta"] = np.array('{"a":' * 50_000 + "1" + "}" * 50_000)
        np.savez(folder / f"{name}-deep.npz", **arrays)
        raw = source.read_bytes()
        (folder / f"{name}-cut.npz").write_bytes(raw[: rng.randrange(30, len(raw) // 2)])
        player = "engine" if name == "nnue" else "td"
        for variant in ("huge", "deep", "cut"):
            out.append((f"{name} network, {variant}",
                        ["game", "--black", f"{player}:{option}={folder / f'{name}-{variant}.npz'}", "--white",
                         "random", "--max-plies", "2", "--quiet"]))
    (folder / "weights-deep.json").write_text(_deep())
    (folder / "weights-huge.json").write_text(json.dumps({"weights": [1e300] * 10}))
    (folder / "weights-digits.json").write_text('{"weights": [' + "9" * 5000 + "]}")
    for variant in ("deep", "huge", "digits"):
        out.append((f"alphalone weights, {variant}",
                    ["game", "--black", f"alphalone:weights={folder / f'weights-{variant}.json'},depth=1",
                     "--white", "random", "--max-plies", "2", "--quiet"]))
    journal = folder / "sprt.jsonl"
    journal.write_text(_deep() + "\n")
    sprt = ["sprt", "random", "greedy", "--fixed", "--max-games", "2", "--journal", str(journal)]
    out.append(("SPRT journal, deep (skipped, its game played again)", sprt))
    run = folder / "nnue-run"
    run.mkdir()
    (run / "state.json").write_text(_deep())
    out.append(("nnue selfplay state.json, deep", ["nnue", "selfplay", "--out", str(run), "--generations", "1"]))
    data = folder / "nnue-data"
    data.mkdir()
    _npz(data / "chunk-00000.npz", json.loads("[" * 500 + "]" * 500))
    with zipfile.ZipFile(data / "chunk-00001.npz", "w") as archive:
        archive.writestr("meta.npy", b"\x93NUMPY" + b"\x00" * 20)
    out.append(("NNUE data chunks, deep and damaged", ["nnue", "train", str(data), "--out", str(folder / "net.npz"),
                                                       "--epochs", "1"]))
    return out


def run_files(rounds: int, rng: random.Random, scratch: Path) -> Tally:
    tally = Tally("hostile files to each reader (deep JSON, weights of 1e30, truncated)")
    t0 = time.monotonic()
    for k in range(rounds):
        folder = scratch / f"files-{k}"
        folder.mkdir()
        for what, argv in hostile_files(folder, rng):
            proc = Proc(argv, folder)
            code = proc.finish(120)
            lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
            wrong = None
            if "Traceback" in proc.stderr or "RecursionError" in proc.stderr:
                wrong = f"{what}: {tail(proc.stderr)}"
            elif "skipped" in what:  # a journal's damaged line: said, skipped, and the run goes on
                if code != 0 or "damaged lines skipped" not in proc.stderr:
                    wrong = f"{what}: exit status {code}: {tail(proc.stderr)}"
            elif code in (0, None):
                wrong = f"{what}: exit status {code}"
            elif len(lines) != 1:
                wrong = f"{what}: {tail(proc.stderr)}"
            tally.record(wrong, what)
        shutil.rmtree(folder, ignore_errors=True)
    tally.seconds = time.monotonic() - t0
    return tally


# --------------------------------------------------------------------------- the engine's stop
def run_stop(count: int, rng: random.Random, scratch: Path) -> Tally:
    tally = Tally("`stop` at Threads 64 and Hash 4096 (2 cores)")
    t0 = time.monotonic()
    proc = Proc(["engine"], scratch, stdin=True)
    try:
        proc.send("uci")
        proc.send("setoption name Threads value 64")
        proc.send("setoption name Hash value 4096")
        proc.send("isready")
        if not proc.wait_line("readyok", 120):
            raise SystemExit(f"the engine did not get ready: {tail(proc.stderr)}")
        for _ in range(count):
            seen = sum("bestmove" in line for line in proc.out)
            proc.send("position startpos")
            proc.send("go infinite")
            time.sleep(rng.uniform(0.2, 1.0))
            sent = time.monotonic()
            proc.send("stop")
            answered = proc.wait_for(lambda seen=seen: sum("bestmove" in line for line in proc.out) > seen, 30)
            took = time.monotonic() - sent
            wrong = None if answered and took <= STOP_LIMIT else f"bestmove {took:.2f} s after stop"
            tally.record(wrong, "stop")
        proc.send("quit")
        proc.finish(20)
    finally:
        proc.kill_group()
    tally.seconds = time.monotonic() - t0
    return tally


# --------------------------------------------------------------------------- memory under a mixed flood
MEMORY_ADDRESSES, MEMORY_TOKENS = 10, 4
MEMORY_LAYOUTS = ("standard", "belgian-daisy", "german-daisy", "small", "mini")
MEMORY_SAMPLE = 5.0  # seconds between two samples of the workers' memory
MEMORY_GROWTH = 1.05  # the last third's peak may be this much above the middle third's


def rss_mb(pid: int) -> tuple[float, float] | None:
    """The resident memory (MB) of process ``pid`` (VmRSS) and the part of it no other process shares
    (private pages: a forked worker's RSS counts the server's pages it shares too); None once it is gone."""
    found: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                name, _, rest = line.partition(":")
                if name in ("Rss", "Private_Clean", "Private_Dirty"):
                    found[name] = int(rest.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    if "Rss" not in found:
        return None
    return found["Rss"], found.get("Private_Clean", 0.0) + found.get("Private_Dirty", 0.0)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the server's thinking workers)."""
    found = []
    for name in Path("/proc").iterdir():
        if name.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (name / "stat").read_text()
                if int(stat.rpartition(")")[2].split()[1]) == pid:
                    found.append(int(name.name))
    return found


def memory_spec(rng: random.Random) -> str:
    """An engine spec that no client asked for yet, most likely: its own table size, contempt, depth or time,
    and evaluation."""
    contempt = f"contempt={rng.uniform(-2, 2):.4f}"
    kind = rng.randrange(3)
    if kind == 0:
        return f"engine:hash={rng.choice((1, 4, 16, 32, 64, 128, 256))},time={rng.uniform(0.1, 1):.2f},{contempt}"
    if kind == 1:
        return f"engine:depth={rng.randint(2, 5)},{contempt},hash={rng.choice((8, 32, 96))}"
    nnue = rng.choice(("builtin-nnue", "expert-nnue", "selftaught-nnue", "none"))
    return f"engine:nnue={nnue},time={rng.uniform(0.1, 0.6):.2f},{contempt}"


class Flooder(threading.Thread):
    """One address's owner tokens, each in turn ending its last game and starting another with new engine
    specs: a watch game between two, or a person's game whose first move the client plays (the engine
    replies), with a hint asked now and then."""

    def __init__(self, server: Server, source: str, seed: int, until: float) -> None:
        super().__init__(daemon=True)
        self.server, self.source, self.until = server, source, until
        self.rng = random.Random(seed)
        self.tokens = [f"probe-memory-{source.replace('.', '-')}-{k:02d}" for k in range(MEMORY_TOKENS)]
        self.games: dict[str, str] = {}
        self.made = self.moves = self.refused = 0
        self.failures: list[str] = []

    def run(self) -> None:
        while time.monotonic() < self.until:
            for token in self.tokens:
                if time.monotonic() >= self.until:
                    break
                try:
                    self.turn(token)
                except OSError as exc:
                    self.failures.append(f"{self.source}: {exc}")
                time.sleep(self.rng.uniform(0.5, 1.5))
        for token, game in self.games.items():
            with contextlib.suppress(OSError):
                self.server.call(self.source, "DELETE", f"/api/games/{game}", token=token)

    def turn(self, token: str) -> None:
        call = self.server.call
        old = self.games.pop(token, None)
        if old is not None:
            call(self.source, "DELETE", f"/api/games/{old}", token=token)
        layout = self.rng.choice(MEMORY_LAYOUTS)
        watch = self.rng.random() < 0.5
        new = {"black": memory_spec(self.rng) if watch else "human", "white": memory_spec(self.rng),
               "layout": layout, "speed": 0}
        status, game = call(self.source, "POST", "/api/games", new, token)
        if status == 429:
            self.refused += 1  # the address's caps: expected under a flood
            return
        if status != 201:
            self.failures.append(f"{self.source}: new game {status} {game}")
            return
        self.made += 1
        self.games[token] = game["id"]
        if watch:
            return
        first = Position.start(layout).legal_moves()[0].notation()
        status, state = call(self.source, "POST", f"/api/games/{game['id']}/moves", {"move": first}, token)
        if status == 200:
            self.moves += 1
        elif status not in (409, 429):
            self.failures.append(f"{self.source}: move {status} {state}")
        if self.rng.random() < 0.3:
            status, hint = call(self.source, "POST", f"/api/games/{game['id']}/hint", {"seconds": 0.2}, token)
            if status >= 500:
                self.failures.append(f"{self.source}: hint {status} {hint}")


def run_memory(minutes: float, seed: int, scratch: Path) -> tuple[list[Tally], list[str]]:
    """Each worker's resident memory under 10 addresses x 4 tokens making games with distinct engine specs for
    ``minutes``: the tallies (each sample within the documented figure; no growth from the middle third to the
    last) and the Markdown rows of the memory over time."""
    server = Server(scratch / "memory")
    figure = WORKER_MEMORY_MB
    #: (seconds, each worker's RSS and private MB, the server's RSS MB)
    samples: list[tuple[float, list[tuple[float, float]], float]] = []
    try:
        server.wait_for_workers()
        t0 = time.monotonic()
        until = t0 + 60 * minutes
        flooders = [Flooder(server, source, seed * 1000 + k, until)
                    for k, source in enumerate(attacker_addresses(MEMORY_ADDRESSES, first=60))]
        for flooder in flooders:
            flooder.start()
        while (now := time.monotonic()) < until:
            workers = [mb for pid in children(server.proc.pid) if (mb := rss_mb(pid)) is not None]
            samples.append((now - t0, workers, (rss_mb(server.proc.pid) or (0.0, 0.0))[0]))
            time.sleep(MEMORY_SAMPLE)
        for flooder in flooders:
            flooder.join(timeout=120)
    finally:
        server.close()
    bounded = Tally(f"each worker's RSS within {figure} MB (the documented figure), a sample every "
                    f"{MEMORY_SAMPLE:g} s")
    for at, workers, _ in samples:
        top = max((rss for rss, _ in workers), default=0.0)
        bounded.record(None if top <= figure else f"{top:.0f} MB at {at:.0f} s", "sample")
    for flooder in flooders:
        for failure in flooder.failures[:5]:
            bounded.record(failure, "a request")
    steady = Tally(f"no growth: the last third's peak within {MEMORY_GROWTH - 1:.0%} of the middle third's")
    third = len(samples) // 3
    if third:
        middle = max(max((rss for rss, _ in w), default=0.0) for _, w, _ in samples[third:2 * third])
        last = max(max((rss for rss, _ in w), default=0.0) for _, w, _ in samples[2 * third:])
        steady.record(None if last <= MEMORY_GROWTH * middle else f"{middle:.0f} -> {last:.0f} MB", "workers")
        middle = max(s for _, _, s in samples[third:2 * third])
        last = max(s for _, _, s in samples[2 * third:])
        steady.record(None if last <= MEMORY_GROWTH * middle else f"{middle:.0f} -> {last:.0f} MB", "server")
    bounded.seconds = steady.seconds = 60 * minutes
    made = sum(f.made for f in flooders)
    print(f"probe_load: {made} games made ({sum(f.refused for f in flooders)} refused by the caps), "
          f"{sum(f.moves for f in flooders)} moves played", file=sys.stderr, flush=True)
    peak = max(((rss, private) for _, w, _ in samples for rss, private in w), default=(0.0, 0.0))
    print(f"probe_load: the largest worker RSS {peak[0]:.0f} MB (private {peak[1]:.0f} MB), the server's "
          f"{max((own for _, _, own in samples), default=0.0):.0f} MB", file=sys.stderr, flush=True)
    rows = []
    step = max(1, round(60 / MEMORY_SAMPLE))  # a row a minute
    for at, workers, own in samples[::step] + samples[-1:]:
        shown = " / ".join(f"{rss:.0f} ({private:.0f})" for rss, private in sorted(workers))
        top = max((rss for rss, _ in workers), default=0.0)
        rows.append(f"| {at / 60:.1f} | {shown} | {top:.0f} | {own:.0f} |")
    return [bounded, steady], rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10, help="tries of each probe (default 10)")
    parser.add_argument("--file-rounds", type=int, default=2, help="hostile files for each reader (default 2)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--attackers", default="8,20",
                        help="addresses of the addresses probes, comma-separated (default 8,20; at most 80)")
    parser.add_argument("--requests", type=int, default=40,
                        help="another address's requests in the addresses-idle probe (default 40)")
    parser.add_argument("--spread", type=float, default=30.0,
                        help="seconds those requests are spread over (default 30)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"which probes, comma-separated among {', '.join(KINDS)} (default all)")
    parser.add_argument("--minutes", type=float, default=10.0,
                        help="minutes of the memory probe's flood (default 10)")
    args = parser.parse_args(argv)
    kinds = chosen_kinds(parser, args.kinds, KINDS)
    try:
        attackers = sorted({int(n) for n in args.attackers.split(",") if n.strip()})
    except ValueError:
        parser.error(f"--attackers: numbers of addresses, comma-separated, not {args.attackers[:40]!r}")
    if not attackers or not all(1 <= n <= 80 for n in attackers):
        parser.error("--attackers: from 1 to 80 addresses each")
    if args.requests < 1 or not 0 <= args.spread <= 3600:
        parser.error("--requests must be at least 1 and --spread from 0 to 3600 s")
    if not 0.5 <= args.minutes <= 120:
        parser.error("--minutes must be from 0.5 to 120")
    times: list[str] = []
    memory: list[str] = []
    rng = random.Random(args.seed)
    tallies: list[Tally] = []
    with tempfile.TemporaryDirectory(prefix="probe-load-") as tmp:
        scratch = Path(tmp)
        ENV["XDG_DATA_HOME"] = str(scratch / "data")  # never the user's own archive
        show = start_table(tallies)
        if "flood" in kinds:
            for tally in run_flood(args.count, scratch):
                show(tally)
        if "addresses" in kinds:
            tallies_times = run_addresses(args.count, attackers, scratch)
            for tally in tallies_times[0]:
                show(tally)
            times = tallies_times[1]
        if "addresses-idle" in kinds:
            for tally in run_addresses_idle(attackers, args.requests, args.spread, scratch):
                show(tally)
        if "idle" in kinds:
            show(run_idle(args.count, scratch))
        if "slow" in kinds:
            show(run_slow(args.count, scratch))
        if "resume" in kinds:
            show(run_resume(args.count, scratch))
        if "files" in kinds:
            show(run_files(args.file_rounds, rng, scratch))
        if "stop" in kinds:
            show(run_stop(args.count, rng, scratch))
        if "memory" in kinds:
            tallies_rows = run_memory(args.minutes, args.seed, scratch)
            for tally in tallies_rows[0]:
                show(tally)
            memory = tallies_rows[1]
    if times:
        print("\n| attacking addresses | reply | unloaded s | under attack s (median / max) | bound s |")
        print("|---|---|---|---|---|")
        print("\n".join(times), flush=True)
    if memory:
        print("\n| minutes | each worker's RSS MB (its private part) | the largest RSS | the server's RSS MB |")
        print("|---|---|---|---|")
        print("\n".join(memory), flush=True)
    return report_failures(tallies)


if __name__ == "__main__":
    run_main(main, resumable=False)
