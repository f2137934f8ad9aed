"""``zero``: a policy-value network from ``sumito zero train`` playing with its tree search.

``zero:net=FILE,sims=64`` searches with 64 simulations a move (the root search it was trained with, unless ``mode=``
says another); ``time=S`` searches for about S seconds instead (the
simulations that fit, from the speed of its last searches); ``play=policy`` plays the raw policy's most
likely move, ``play=value`` the move whose position the network values most one ply on (a win first).
``net=builtin`` is the shipped mini-board network. Without noise the search is deterministic: the same spec
plays the same moves.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib.resources import files

import numpy as np

from sumito.bounds import MAX_SIMS
from sumito.defaults import ZERO_SEARCH_MODES
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.models.zero.agent import ZeroAgent
from sumito.models.zero.network import PolicyValueNetwork
from sumito.players.base import MAX_SEARCH_SECONDS, Option, PlayerBase, PlayerKind, PlayerSpecError, register

#: the shipped networks: net=NAME → a file of sumito/data
BUILTINS = {"builtin": "zero-mini.npz"}
PLAYS = ("search", "policy", "value")
#: the fewest simulations a timed search runs
MIN_TIMED_SIMS = 16


def zero_network_path(name: str) -> str:
    if name in BUILTINS:
        return str(files("sumito") / "data" / BUILTINS[name])
    return name


def _trained(network: PolicyValueNetwork, key: str):
    """A setting of the run that trained ``network`` (its file's metadata), or None where it says none."""
    settings = network.metadata.get("settings")
    return settings.get(key) if isinstance(settings, dict) else None


def trained_mode(network: PolicyValueNetwork) -> str:
    """The root search a network was trained with (its file's settings; Gumbel where it says none)."""
    mode = _trained(network, "mode")
    return mode if mode in ZERO_SEARCH_MODES else "gumbel"


def trained_discount(network: PolicyValueNetwork) -> float:
    """The per-ply discount of values a network was trained with (1 where its file says none)."""
    discount = _trained(network, "discount")
    return float(discount) if isinstance(discount, (int, float)) and 0.0 < discount <= 1.0 else 1.0


class ZeroPlayer(PlayerBase):
    def __init__(self, net: str = "builtin", sims: int = 64, time: float | None = None, play: str = "search",
                 mode: str | None = None) -> None:
        if play not in PLAYS:
            raise PlayerSpecError(f"zero play must be one of {', '.join(PLAYS)}, not {play!r}")
        network = PolicyValueNetwork.load(zero_network_path(net))
        trained = trained_mode(network)
        mode = mode or trained
        if mode not in ZERO_SEARCH_MODES:
            raise PlayerSpecError(f"zero mode must be one of {', '.join(ZERO_SEARCH_MODES)}, not {mode!r}")
        self.agent = ZeroAgent(network, mode, discount=trained_discount(network))
        self.sims = sims
        self.time = time
        self.play = play
        self._rate: float | None = None  # simulations a second, from the last searches
        self.name = "zero" if net == "builtin" else f"zero:net={net}"
        extras = []
        if time is not None:
            extras.append(f"time={time:g}")
        elif sims != 64:
            extras.append(f"sims={sims}")
        if play != "search":
            extras.append(f"play={play}")
        if mode != trained:
            extras.append(f"mode={mode}")
        for extra in extras:
            self.name += ("," if ":" in self.name else ":") + extra

    def warm_up(self, position: Position) -> None:
        # a first timed search loads the kernels and measures the rate; once is enough (the protocol warms up at
        # every position, and each search after it measures the rate again)
        if self._rate is None and position.variant.side == self.agent.network.side and position.count_legal_moves():
            self._timed_search(position, MIN_TIMED_SIMS)

    def _timed_search(self, position: Position, sims: int):
        started = time.perf_counter()
        result = self.agent.search(position, sims)
        elapsed = max(time.perf_counter() - started, 1e-6)
        rate = sims / elapsed
        self._rate = rate if self._rate is None else 0.5 * (self._rate + rate)
        return result

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        side = position.variant.side
        if self.play == "policy":
            views = self.agent.views(position)
            return Move(int(views.codes[int(np.argmax(views.prior))]), side)
        if self.play == "value":
            views = self.agent.views(position)
            return Move(int(views.codes[int(np.argmax(views.after))]), side)
        budget = self.time if movetime is None else movetime if self.time is None else min(self.time, movetime)
        sims = self.sims
        if budget is not None:
            rate = self._rate or 2000.0
            sims = int(min(MAX_SIMS, max(MIN_TIMED_SIMS, 0.8 * budget * rate)))
        result = self._timed_search(position, sims)
        return Move(int(result.codes[result.chosen]), side)


register(
    PlayerKind(
        name="zero",
        factory=ZeroPlayer,
        options={
            "net": Option(str, "builtin", "a network file from `sumito zero train`; default: the shipped mini-board "
                          "one", path=True),
            "sims": Option(int, 64, "simulations a move", low=1, high=MAX_SIMS),
            "time": Option(float, None, "seconds a move instead of a fixed number of simulations", low=0.001,
                           high=MAX_SEARCH_SECONDS),
            "play": Option(str, "search", "search (the tree search), policy (the raw policy's choice) or value "
                           "(the best value one ply on)"),
            "mode": Option(str, None, "the root search: gumbel or puct; default: as the network was trained"),
        },
        help="a policy-value network learned by self-play, with its tree search",
        sides=(3,),
    )
)
