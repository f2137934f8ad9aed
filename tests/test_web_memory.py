"""A thinking worker's players within their number and memory budget (sumito.web.playercache)."""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from sumito.defaults import WORKER_BASE_MB, WORKER_PLAYERS_MB
from sumito.games.abalone import Position
from sumito.players import make_player
from sumito.players.engine import TABLE_ENTRY_BYTES, table_entries
from sumito.procs import map_big_arrays, trim_heap
from sumito.web.limits import WORKER_MEMORY_MB, worker_memory_mb
from sumito.web.playercache import PlayerCache, footprint_mb


@dataclass
class Sized:
    """A stand-in player that says how many MB it holds."""

    mb: float


def cache(budget: float = 100, most: int = 8) -> PlayerCache[str]:
    return PlayerCache(budget, most, size=lambda player: player.mb)


def test_the_least_recently_used_players_go_past_the_budget_counted_in_mb():
    kept = cache(budget=100)
    for name, mb in (("a", 40), ("b", 30), ("c", 20)):
        kept.get(name, lambda mb=mb: Sized(mb))
    assert kept.keys() == ["a", "b", "c"] and kept.total_mb == 90
    kept.get("a", lambda: Sized(99))  # used again: the most recent, not rebuilt
    assert kept.keys() == ["b", "c", "a"]
    kept.get("d", lambda: Sized(25))  # 115 MB: the oldest goes, and only it
    assert kept.keys() == ["c", "a", "d"] and kept.total_mb == 85 and kept.dropped == 1
    kept.get("e", lambda: Sized(70))
    assert kept.keys() == ["d", "e"] and kept.total_mb == 95


def test_a_player_over_the_budget_is_kept_alone_and_the_count_is_bounded_too():
    kept = cache(budget=100, most=3)
    for name in "abcd":
        kept.get(name, lambda: Sized(1))
    assert kept.keys() == ["b", "c", "d"]
    kept.get("big", lambda: Sized(500))
    assert kept.keys() == ["big"] and kept.total_mb == 500


def test_a_player_counted_again_after_its_move_makes_room_for_what_it_made():
    kept = cache(budget=100)
    small = kept.get("a", lambda: Sized(10))
    kept.get("b", lambda: Sized(50))
    kept.get("a", lambda: Sized(0))
    small.mb = 60  # its move made it a table
    kept.settle("a")
    assert kept.keys() == ["a"] and kept.total_mb == 60


def test_an_engines_footprint_counts_its_tables_and_the_second_one_to_come():
    table_mb = table_entries(8) * TABLE_ENTRY_BYTES / 2**20
    hand_set = make_player("engine:depth=1,hash=8,nnue=none")
    assert table_mb <= footprint_mb(hand_set) <= table_mb + 4  # the table and its search's work arrays
    learned = make_player("engine:depth=1,hash=8")  # a network: a second table on a board it does not know
    before = footprint_mb(learned)
    assert 2 * table_mb <= before <= 2 * table_mb + 4
    learned.choose(Position.start("small"))
    assert footprint_mb(learned) == pytest.approx(before, abs=1.5)  # its table made now, counted once
    view = np.zeros(2**20, dtype=np.uint8)
    assert footprint_mb(Sized(0)) == 0 and footprint_mb([view, view[10:], {"x": view.view(np.int64)}]) == 1


def test_the_documented_figure_is_the_base_and_the_budget_or_one_engine_alone():
    assert WORKER_MEMORY_MB == worker_memory_mb() >= WORKER_BASE_MB + WORKER_PLAYERS_MB
    assert worker_memory_mb(1) == WORKER_BASE_MB + WORKER_PLAYERS_MB
    one = make_player("engine:depth=1,hash=1024")
    assert worker_memory_mb(1024) >= WORKER_BASE_MB + footprint_mb(one)


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_big_arrays_are_mapped_on_their_own_so_a_dropped_table_goes_back_to_the_os():
    assert map_big_arrays()
    trim_heap()
