"""What a web client may ask of the server: the caps of ``sumito serve`` and the files a spec may name.

A web page is not the person at the keyboard: any page the browser visits can send requests to
``localhost``. So every player spec that arrives over HTTP is checked against the server's own,
tighter caps (search depth, seconds a move, transposition-table size), and an option that names a
file (``td:net=``, ``engine:net=``, ``alphalone:weights=``) may name only a shipped network or a
file inside the model folder the server was started with. Errors never say whether a path exists
outside that folder. Each address may also have only so many games with a computer playing
(``--max-games``), searches queued or running (``--max-queued``) and games between two people
(``--max-human-games``), so that one client cannot fill the server's memory or queue, however many
owner tokens it makes; the workers are shared fairly between addresses by
:mod:`sumito.web.scheduler`, and connections are bounded by :mod:`sumito.web.connections`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sumito.bounds import MAX_CLIENT_CAP, MAX_HASH_MB, MAX_SEARCH_DEPTH, MAX_SEARCH_SECONDS
from sumito.defaults import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_HASH_MB,
    DEFAULT_MAX_HUMAN_GAMES,
    DEFAULT_MAX_QUEUED,
    DEFAULT_MAX_TIME,
    WORKER_BASE_MB,
    WORKER_PLAYERS_MB,
)
from sumito.evaluation.nnue import NO_NNUE, SHIPPED_NNUE
from sumito.models.network import BUILTINS
from sumito.players import PlayerSpecError, parse_spec
from sumito.players.engine import TABLE_ENTRY_BYTES, table_entries

#: analyses (hints, the evaluation bar, a game's analysis) running at once over the server
ANALYSES_AT_ONCE = 2
#: what one player may hold beyond its tables (its network, its search threads' work arrays)
PLAYER_EXTRA_MB = 16


def worker_memory_mb(max_hash: int = DEFAULT_MAX_HASH_MB) -> int:
    """The most resident memory (MB) one thinking worker of a server started with ``--max-hash`` holds:
    its base and its players' budget, or one player alone where that is bigger (an engine of ``--max-hash``
    with a network: a player bigger than the budget is kept alone, and such an engine keeps a second table,
    of the hand-set evaluation, for a board its network does not know)."""
    alone = 2 * table_entries(max_hash) * TABLE_ENTRY_BYTES / 2**20 + PLAYER_EXTRA_MB
    return WORKER_BASE_MB + math.ceil(max(WORKER_PLAYERS_MB, alone))


#: the figure for the default ``--max-hash`` (docs/reliability.md's memory probe holds each worker to it)
WORKER_MEMORY_MB = worker_memory_mb()
#: seconds a worker gets beyond a move's time before it is killed and replaced
DEFAULT_GRACE = 10.0
#: a move expected to take longer than this is "long": long moves may use all workers but one
LONG_MOVE = 2.0
#: the deepest fixed-depth engine search that counts as quick (not long), although its clock is the server's
#: ``--max-time``: on one core, depth 4 takes about 0.02 s on the standard board, depth 6 0.05-0.2 s, depth 8
#: up to a second
QUICK_ENGINE_DEPTH = 6
#: the biggest record a client may import, and its most plies (far above any real game: the
#: arena's default ends games at 400 plies)
MAX_IMPORT_BYTES = 256 * 1024
MAX_IMPORT_PLIES = 2_000
#: the most boards one replay request returns (a 400-ply game fits in one page)
MAX_REPLAY_PAGE = 500
#: the biggest file of the model folder a spec may name (networks are a few MB)
MAX_MODEL_BYTES = 256 * 1024 * 1024
#: host names a browser on this machine uses; ``--host`` and ``--allowed-hosts`` add more
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")


@dataclass(frozen=True)
class ModelFolder:
    """``make_player``'s ``resolve_path`` for a server: shipped networks by name, or files in ``root``.

    Plain data, so it travels to the worker processes with each request (they build the players).
    """

    root: str | None = None

    def __call__(self, key: str, value: str) -> str:
        if key == "net" and value in BUILTINS:
            return value  # network_path() turns the name into the shipped file
        if key == "nnue" and (value in SHIPPED_NNUE or value == NO_NNUE):
            return value  # nnue_path() turns the name into the shipped file
        shipped = ", ".join(BUILTINS if key == "net" else SHIPPED_NNUE)
        if self.root is None:
            where = f"the shipped networks ({shipped})" if key in ("net", "nnue") else "the default"
            raise PlayerSpecError(
                f"{key}={value[:60]!r}: this server takes only {where}; "
                "start `sumito serve --models DIR` to offer files"
            )
        # one message whatever went wrong, so that a client learns nothing about paths outside the folder
        refused = PlayerSpecError(f"{key}={value[:60]!r} is not a file in this server's model folder")
        root = Path(self.root).resolve()
        try:
            candidate = (root / value).resolve()  # follows symlinks: one pointing out of the folder is refused
            if not candidate.is_relative_to(root) or not candidate.is_file():
                raise refused
            if candidate.stat().st_size > MAX_MODEL_BYTES:
                raise refused
        except (OSError, ValueError, RuntimeError):  # NUL bytes, symlink loops, unreadable folders
            raise refused from None
        return str(candidate)


@dataclass(frozen=True)
class WebLimits:
    """The caps of one server (``sumito serve`` options), checked on every spec a client sends."""

    max_depth: int = DEFAULT_MAX_DEPTH
    max_time: float = DEFAULT_MAX_TIME
    max_hash: int = DEFAULT_MAX_HASH_MB
    max_games: int = DEFAULT_MAX_GAMES
    max_queued: int = DEFAULT_MAX_QUEUED
    max_human_games: int = DEFAULT_MAX_HUMAN_GAMES
    grace: float = DEFAULT_GRACE
    models: ModelFolder = field(default_factory=ModelFolder)
    allowed_hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_SEARCH_DEPTH:
            raise ValueError(f"--max-depth must be from 1 to {MAX_SEARCH_DEPTH}, not {self.max_depth}")
        if not (math.isfinite(self.max_time) and 0 < self.max_time <= MAX_SEARCH_SECONDS):
            raise ValueError(f"--max-time must be a number of seconds above 0, at most {MAX_SEARCH_SECONDS:g}")
        if not 1 <= self.max_hash <= MAX_HASH_MB:
            raise ValueError(f"--max-hash must be from 1 to {MAX_HASH_MB} MB, not {self.max_hash}")
        if not 1 <= self.max_games <= MAX_CLIENT_CAP:
            raise ValueError(f"--max-games must be from 1 to {MAX_CLIENT_CAP}, not {self.max_games}")
        if not 1 <= self.max_queued <= MAX_CLIENT_CAP:
            raise ValueError(f"--max-queued must be from 1 to {MAX_CLIENT_CAP}, not {self.max_queued}")
        if not 1 <= self.max_human_games <= MAX_CLIENT_CAP:
            raise ValueError(f"--max-human-games must be from 1 to {MAX_CLIENT_CAP}, not {self.max_human_games}")
        if not (math.isfinite(self.grace) and self.grace >= 0):
            raise ValueError("the grace period must be a number of seconds, at least 0")

    def check_spec(self, spec: str) -> float:
        """Refuse a spec beyond this server's caps (a one-line :class:`PlayerSpecError`); else the
        seconds one of its moves is expected to take at most, which sets its deadline."""
        kind, options = parse_spec(spec)
        depth = options.get("depth")
        if depth is not None and depth > self.max_depth:
            raise PlayerSpecError(
                f"{spec[:80]}: depth {depth} is above this server's limit of {self.max_depth} "
                "(sumito serve --max-depth)"
            )
        seconds = options.get("time")
        if seconds is not None and seconds > self.max_time:
            raise PlayerSpecError(
                f"{spec[:80]}: time {seconds:g} s is above this server's limit of {self.max_time:g} s "
                "(sumito serve --max-time)"
            )
        hash_mb = options.get("hash")
        if hash_mb is not None and hash_mb > self.max_hash:
            raise PlayerSpecError(
                f"{spec[:80]}: hash {hash_mb} MB is above this server's limit of {self.max_hash} MB "
                "(sumito serve --max-hash)"
            )
        full = {key: option.default for key, option in kind.options.items()} | options
        return min(self.max_time, _expected_seconds(kind.name, full, self.max_time))

    def long_move(self, spec: str) -> bool:
        """Whether a move of ``spec`` counts as long (it may not take the worker kept for quick moves): one
        that may think more than :data:`LONG_MOVE` seconds by its spec. A table look-up (``perfect``) and a
        fixed-depth engine search to :data:`QUICK_ENGINE_DEPTH` plies are quick, although their deadline is
        ``--max-time`` (a rare slow search is not cut short)."""
        kind, options = parse_spec(spec)
        if kind.name == "perfect":
            return False
        if kind.name == "engine" and options.get("time") is None and options.get("nodes") is None:
            depth = options.get("depth")
            if depth is not None and depth <= QUICK_ENGINE_DEPTH:
                return False
        return self.check_spec(spec) > LONG_MOVE

    def deadline(self, expected: float) -> float:
        """Seconds after which a worker still thinking on a move is killed and replaced."""
        return min(expected, self.max_time) + self.grace

    def host_allowed(self, host_header: str) -> bool:
        """Whether a request's ``Host`` header names this server (the defence against DNS rebinding)."""
        name = _host_name(host_header)
        allowed = {h.lower().strip("[]") for h in (*LOCAL_HOSTS, *self.allowed_hosts)}
        return "*" in allowed or name in allowed


def _authority(text: str) -> tuple[str, int | None]:
    """``example.com:8000`` → (``example.com``, 8000); ``[::1]`` → (``::1``, None); a port that is not a
    number is kept as -1, which matches no port."""
    text = text.strip().lower()
    if text.startswith("["):
        name, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        name, _, port = text.partition(":")
    else:
        name, port = text, ""
    if not port:
        return name, None
    return name, int(port) if port.isascii() and port.isdigit() and len(port) <= 5 else -1


#: the port a URL of each scheme means when it names none
DEFAULT_PORTS = {"http": 80, "https": 443}


def same_origin(origin: str, host_header: str) -> bool:
    """Whether a request's ``Origin`` is the server's own: the same host name and the same port as the
    request's ``Host`` (the port a URL's scheme means where the origin names none; with no port in ``Host``,
    either default port: a proxy in front may have changed the scheme). ``null`` and other schemes are
    another origin. This is what lets a page change games: a page of another site, or of another server
    on the same host (another port), may not."""
    origin_scheme, sep, authority = origin.strip().lower().partition("://")
    if not sep or origin_scheme not in DEFAULT_PORTS or "/" in authority:
        return False
    origin_name, origin_port = _authority(authority)
    host_name, host_port = _authority(host_header)
    if not origin_name or origin_name != host_name:
        return False
    origin_port = DEFAULT_PORTS[origin_scheme] if origin_port is None else origin_port
    if host_port is None:
        return origin_port in DEFAULT_PORTS.values()
    return origin_port == host_port


def _host_name(header: str) -> str:
    """``example.com:8000`` → ``example.com``; ``[::1]:8000`` → ``::1``."""
    return _authority(header)[0]


def _expected_seconds(kind: str, options: dict[str, Any], max_time: float) -> float:
    """How long a move of this player may take at most, as far as its spec tells (unknown: ``max_time``)."""
    if kind in ("random", "greedy", "td"):
        return 1.0  # one ply at most: milliseconds, plus loading a network the first time
    if kind == "engine":
        if options.get("time") is not None:
            return float(options["time"])
        # a search to a depth or a node budget: the server's clock (a bare engine searches 1 s)
        return max_time if options.get("depth") is not None or options.get("nodes") is not None else 1.0
    if kind == "alphalone":
        return float(options.get("time") or max_time)
    if kind in ("abla", "heuristic"):
        return 1.0 if (options.get("depth") or 0) <= 3 else max_time
    return max_time


def valid_token(token: str) -> bool:
    """An owner token as clients may choose it: 16 to 128 URL-safe characters."""
    return _TOKEN.fullmatch(token) is not None
