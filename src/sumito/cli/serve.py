"""``sumito serve``: the web app on this machine (FastAPI served by uvicorn).

The listening socket is opened here, before uvicorn starts, so that a port in use or a host that
does not exist is a one-line ``sumito: error: …`` with exit status 2 rather than a log trace.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path

from sumito.errors import SumitoError
from sumito.procs import cap_workers
from sumito.web.limits import ModelFolder, WebLimits

WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class ServeError(SumitoError):
    """The server cannot start (port in use, unknown host, unusable database)."""


def open_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``, or a :class:`ServeError` saying why there is none."""
    if not 0 <= port <= 65535:
        raise ServeError(f"--port must be between 0 and 65535, not {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {_shown(host)}: {exc.strerror}") from None
    except (UnicodeError, ValueError):  # a label over 63 characters (IDNA), a NUL byte
        raise ServeError(f"cannot listen on {_shown(host)}: not a host name or address") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno is not None and exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise ServeError(f"port {port} on {_shown(host)} is in use (give another with --port)") from None
        raise ServeError(f"cannot listen on {_shown(host)}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def trusted_proxies(text: str) -> tuple[str, ...]:
    """``--trusted-proxy``'s addresses (IP addresses only: a name could change what it points to)."""
    proxies = tuple(a.strip() for a in text.split(",") if a.strip())
    for address in proxies:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise ServeError(f"--trusted-proxy {_shown(address)}: not an IP address") from None
    return proxies


def _shown(text: str) -> str:
    """A value as an error quotes it: at most 60 characters, escaped where it is not printable."""
    cut = text if len(text) <= 60 else text[:57] + "..."
    return cut if cut.isprintable() else repr(cut)


def _url(host: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve_limits(args: argparse.Namespace) -> WebLimits:
    """The caps, model folder and allowed hosts that ``sumito serve``'s options ask for."""
    models = None
    if args.models is not None:
        folder = Path(args.models)
        try:
            is_folder = folder.is_dir()
            models = str(folder.resolve())
        except (OSError, ValueError, RuntimeError):  # a name too long, a NUL byte, a symlink loop
            is_folder = False
        if not is_folder:
            raise ServeError(f"--models {_shown(args.models)}: not a folder")
    hosts = [h.strip() for h in args.allowed_hosts.split(",") if h.strip()]
    if args.host not in WILDCARD_HOSTS:
        hosts.append(args.host)
    try:
        return WebLimits(
            max_depth=args.max_depth,
            max_time=args.max_time,
            max_hash=args.max_hash,
            max_games=args.max_games,
            max_queued=args.max_queued,
            max_human_games=args.max_human_games,
            models=ModelFolder(models),
            allowed_hosts=tuple(hosts),
        )
    except ValueError as exc:
        raise ServeError(str(exc)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    workers = None if args.workers is None else cap_workers(args.workers)
    limits = serve_limits(args)
    # deferred to here, not to dodge a cycle: uvicorn, FastAPI and the app load only when a server starts,
    # not for every `sumito` command (the CLI imports this module to build its parser)
    import uvicorn

    from sumito.web.app import create_app
    from sumito.web.connections import UVICORN_LIMIT, protocol_class

    proxies = trusted_proxies(args.trusted_proxy)
    # a bad database fails before the port opens
    app = create_app(args.db, args.archive, workers=workers, limits=limits)
    sock = open_socket(args.host, args.port)
    # the protocol holds at most CONNECTIONS_IN_ALL connections, a share for each address (limit_concurrency is
    # uvicorn's own limit, a backstop above it: connections.UVICORN_LIMIT). A client
    # names its own address (X-Forwarded-For) only through a proxy the command line trusts: uvicorn's default
    # trusts one from this machine, which would let any local page choose its share of the workers
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        limit_concurrency=UVICORN_LIMIT,
        timeout_keep_alive=5,
        http=protocol_class(proxies),
        proxy_headers=bool(proxies),
        forwarded_allow_ips=list(proxies) or None,
    )
    server = uvicorn.Server(config)
    print(f"Sumito is running at {_url(args.host, sock)}")
    if args.host in WILDCARD_HOSTS and not limits.allowed_hosts:
        print("Listening on every address: add this machine's names with --allowed-hosts to reach it by them.")
    print("Open it in a browser; the API is described at /docs. Ctrl-C stops the server.")
    sys.stdout.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops on Ctrl-C, then raises the signal again
        pass
    finally:
        sock.close()
    print("Sumito stopped.")
    return 0
