"""Damaged solve checkpoints and solved tables: every reader answers in one line, and the solve recovers.

A damaged checkpoint used to raise in 9 of 12 cases (a traceback on every rerun until the file was deleted), a
checkpoint that was a FIFO hung the solve, one that was ``/dev/zero`` ran for minutes, a byte-flipped table gave a
``zlib.error`` traceback, and a table with every value negated (its digest recomputed) was believed. Here each
reader is fed cut, byte-flipped, oversized, mistyped and misshapen files, a FIFO, a folder, a link to
``/dev/zero``, an empty file and the crafted table: it either reads back exactly what was written or says what
is wrong in one line; the solve sets the file aside (renamed, never overwritten) and finishes with the right
table. A reader that could block runs on a thread with a deadline.
"""

from __future__ import annotations

import io
import json
import os
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sumito.solve.table as T
from sumito.arena.db import GameArchive
from sumito.arena.errors import ArchiveError, ArenaError
from sumito.arena.journal import GameJournal
from sumito.cli import main
from sumito.errors import SumitoError
from sumito.fileio import NpzArchive, open_regular, read_rows, set_aside
from sumito.games.abalone import RecordError, read_records
from sumito.games.abalone.variants import Variant
from sumito.learn.run import load_checkpoint
from sumito.learn.training import TrainingError
from sumito.solve.solver import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    DamagedCheckpoint,
    OtherSolveCheckpoint,
    read_checkpoint,
    resumable_state,
    solve_values,
    write_checkpoint,
)
from sumito.solve.table import SolvedTable, TableCheckError
from sumito.web.store import WebStore, WebStoreError

DAMAGE = settings(max_examples=15, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
#: a table of half a million entries, solved in well under a second
SMALL = Variant(side=3, marbles=3, win_threshold=1)
#: 770 entries: what the command-line test solves
TINY = Variant(side=2, marbles=3, win_threshold=2)
#: a reader that could block gets this long before the test calls it hung
DEADLINE = 60.0


def one_line(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and len(message) < 600, message
    assert "Traceback" not in message, message
    return message


def within_deadline(call):
    """``call()``'s result or exception, from a thread that must finish within :data:`DEADLINE` (a FIFO that
    blocked the open or the read would hold it for ever: the thread is a daemon, so a hang fails this test
    instead of the session)."""
    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the test to judge
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert not worker.is_alive(), "the reader blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture(scope="module")
def small_values():
    return solve_values(SMALL)


@pytest.fixture(scope="module")
def table_bytes(small_values):
    return SolvedTable(SMALL, "draw", small_values.astype(np.int8)).to_bytes()


def _meta(size: int) -> dict:
    return dict(format=CHECKPOINT_FORMAT, side=2, marbles=3, win=2, inline_only=False, no_moves="draw", size=size)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A checkpoint's bytes, its header and the state it holds."""
    rng = np.random.default_rng(3)
    meta = _meta(500)
    values = rng.integers(-30, 30, 500).astype(np.int16)
    counters = rng.integers(0, 255, 500).astype(np.uint8)
    path = tmp_path_factory.mktemp("checkpoint") / "c.npz"
    write_checkpoint(path, meta, 7, values, counters)
    return path.read_bytes(), meta, (7, values, counters)


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _oversized(name: str, others: dict, shape: tuple[int, ...], dtype: str = "<i2") -> bytes:
    """An .npz whose array ``name`` has a header declaring ``shape`` (far more than it holds: a few bytes)."""
    buf = io.BytesIO()
    np.savez(buf, **others)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(buf, "a") as archive:
        archive.writestr(f"{name}.npy", header.getvalue() + bytes(64))
    return buf.getvalue()


def _put(path: Path, kind: str, data: bytes = b"") -> None:
    """Something that is not a good file at ``path``: ``data``, or a FIFO, a folder, a link to /dev/zero."""
    if kind == "bytes":
        path.write_bytes(data)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
        (path / "inside").write_bytes(b"x")
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        raise AssertionError(kind)


SPECIAL = ["fifo", "folder", "zero", "empty"]


def _special(path: Path, kind: str) -> None:
    _put(path, "bytes" if kind == "empty" else kind)


def _clear(path: Path) -> None:
    for p in [path, *path.parent.glob(path.name + ".*")]:
        if p.is_dir() and not p.is_symlink():
            for inner in p.iterdir():
                inner.unlink()
            p.rmdir()
        elif os.path.lexists(p):
            p.unlink()


# ------------------------------------------------------------------ the solve checkpoint
def _same_state(got, want) -> bool:
    return got[0] == want[0] and np.array_equal(got[1], want[1]) and np.array_equal(got[2], want[2])


def _damaged_checkpoint_reads_back_or_is_refused(path: Path, data: bytes, meta: dict, want) -> None:
    path.write_bytes(data)
    try:
        got = within_deadline(lambda: read_checkpoint(path, meta))
    except CheckpointError as exc:
        one_line(exc)
        return
    assert got is not None and _same_state(got, want), "a damaged checkpoint gave another state"


@DAMAGE
@given(cut=st.floats(0, 1, exclude_max=True))
def test_a_cut_checkpoint_is_refused_in_one_line(checkpoint, tmp_path, cut):
    data, meta, _ = checkpoint
    with pytest.raises(DamagedCheckpoint) as caught:
        (tmp_path / "c.npz").write_bytes(data[:int(cut * len(data))])
        read_checkpoint(tmp_path / "c.npz", meta)
    one_line(caught.value)


@DAMAGE
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=4))
def test_a_byte_flipped_checkpoint_reads_back_whole_or_is_refused_in_one_line(checkpoint, tmp_path, flips):
    data, meta, want = checkpoint
    damaged = bytearray(data)
    for where, mask in flips:
        damaged[int(where * len(data))] ^= mask
    _damaged_checkpoint_reads_back_or_is_refused(tmp_path / "c.npz", bytes(damaged), meta, want)


def _wrong_checkpoints(meta: dict) -> dict[str, bytes]:
    size = meta["size"]
    header = np.array(json.dumps({**meta, "plies": 3}))
    good = dict(values=np.zeros(size, np.int16), counters=np.zeros(size, np.uint8))
    return {
        "values int32": _npz(meta=header, values=np.zeros(size, np.int32), counters=good["counters"]),
        "values float": _npz(meta=header, values=np.zeros(size, np.float64), counters=good["counters"]),
        "values big-endian": _npz(meta=header, values=np.zeros(size, ">i2"), counters=good["counters"]),
        "values one more": _npz(meta=header, values=np.zeros(size + 1, np.int16), counters=good["counters"]),
        "values 2-d": _npz(meta=header, values=np.zeros((size, 1), np.int16), counters=good["counters"]),
        "counters int16": _npz(meta=header, values=good["values"], counters=np.zeros(size, np.int16)),
        "no counters": _npz(meta=header, values=good["values"]),
        "meta a number": _npz(meta=np.array(3), **good),
        "meta a list": _npz(meta=np.array("[1, 2]"), **good),
        "plies negative": _npz(meta=np.array(json.dumps({**meta, "plies": -1})), **good),
        "plies text": _npz(meta=np.array(json.dumps({**meta, "plies": "7"})), **good),
        "objects": _npz(meta=header, values=np.array([None] * size, dtype=object), counters=good["counters"]),
        "oversized values": _oversized("values", dict(meta=header, counters=good["counters"]), (10**12,)),
        "oversized counters": _oversized("counters", dict(meta=header, values=good["values"]), (2**40,), "|u1"),
        "oversized meta": _oversized("meta", good, (), "<U1000000000"),
        "not a zip": b"PK\x03\x04" + bytes(100),
    }


@pytest.mark.parametrize("case", list(_wrong_checkpoints(_meta(500))))
def test_a_checkpoint_of_wrong_types_shapes_or_headers_is_refused_in_one_line(tmp_path, case):
    meta = _meta(500)
    path = tmp_path / "c.npz"
    path.write_bytes(_wrong_checkpoints(meta)[case])
    with pytest.raises(DamagedCheckpoint) as caught:
        read_checkpoint(path, meta)
    one_line(caught.value)


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_checkpoint_that_is_no_regular_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "c.npz"
    _special(path, kind)
    with pytest.raises(DamagedCheckpoint) as caught:
        within_deadline(lambda: read_checkpoint(path, _meta(500)))
    assert "regular file" in one_line(caught.value) or kind == "empty"


def test_a_checkpoint_larger_than_its_state_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "c.npz"
    with open(path, "wb") as fh:
        fh.truncate(3 * 500 + (2 << 20))  # sparse: takes no disk
    with pytest.raises(DamagedCheckpoint, match="larger than"):
        read_checkpoint(path, _meta(500))


def test_a_checkpoint_of_another_solve_is_set_aside_not_overwritten(checkpoint, tmp_path):
    data, meta, _ = checkpoint
    path = tmp_path / "c.npz"
    path.write_bytes(data)
    other = {**meta, "marbles": 4}
    with pytest.raises(OtherSolveCheckpoint, match="marbles"):
        read_checkpoint(path, other)
    told: list[str] = []
    assert resumable_state(path, other, told.append) is None
    assert (tmp_path / "c.npz.other").read_bytes() == data and not path.exists()
    (line,) = told
    assert "is of another solve" in line and "set aside as" in line and line.endswith("solving afresh")


@pytest.mark.parametrize("kind", ["cut", "fifo", "folder", "zero", "empty"])
def test_a_damaged_checkpoint_is_set_aside_and_the_solve_starts_afresh(tmp_path, kind):
    """Twice: the second damaged file gets a name of its own (the first is kept), and the solve ends with
    the values of a solve that had no checkpoint, removing its own."""
    whole = solve_values(TINY)
    path = tmp_path / "solve.partial.npz"
    for n, suffix in enumerate((".damaged", ".damaged.2")):
        if kind == "cut":
            _put(path, "bytes", _npz(meta=np.array("{}"))[:50 + n])
        else:
            _special(path, kind)
        told: list[str] = []
        values = within_deadline(lambda told=told: solve_values(TINY, checkpoint=path, on_set_aside=told.append))
        assert np.array_equal(values, whole)
        (line,) = told
        one_line(ValueError(line))
        assert line.startswith(f"the solve checkpoint {path} is damaged (")
        assert line.endswith(f"; set aside as {path}{suffix}; solving afresh"), line
        assert os.path.lexists(f"{path}{suffix}") and not os.path.lexists(path)
    assert os.path.lexists(f"{path}.damaged") and os.path.lexists(f"{path}.damaged.2")


def test_sumito_solve_with_a_damaged_checkpoint_says_so_in_one_line_and_finishes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    T._LOADED.pop((TINY, "draw"), None)
    partial = T.checkpoint_path(TINY)
    partial.write_bytes(b"PK\x03\x04" + bytes(40))
    assert main(["solve", "--side", "2", "--marbles", "3", "--win", "2"]) == 0
    err = capsys.readouterr().err
    told = [line for line in err.splitlines() if "checkpoint" in line]
    # one line (a long path is shortened in the middle to keep it one line, so the line is matched by its parts)
    assert len(told) == 1, err
    assert told[0].startswith("the solve checkpoint ") and told[0].endswith(".damaged; solving afresh"), err
    assert " is damaged (File is not a zip file); set aside as " in told[0], err
    assert os.path.exists(f"{partial}.damaged")
    assert "Traceback" not in err and not partial.exists()
    assert SolvedTable.load(T.cache_path(TINY)).digest() == SolvedTable(TINY, "draw", solve_values(TINY)
                                                                        .astype(np.int8)).digest()
    T._LOADED.pop((TINY, "draw"), None)


# ------------------------------------------------------------------ the solved table
def _table_reads_back_or_is_refused(path: Path, data: bytes, want: np.ndarray) -> None:
    path.write_bytes(data)
    try:
        table = within_deadline(lambda: SolvedTable.load(path))
    except TableCheckError as exc:
        one_line(exc)
        return
    assert np.array_equal(table.values, want), "a damaged table was believed"


@DAMAGE
@given(cut=st.floats(0, 1, exclude_max=True))
def test_a_cut_table_is_refused_in_one_line(table_bytes, tmp_path, cut):
    (tmp_path / "t.npz").write_bytes(table_bytes[:int(cut * len(table_bytes))])
    with pytest.raises(TableCheckError) as caught:
        SolvedTable.load(tmp_path / "t.npz")
    one_line(caught.value)


@DAMAGE
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=4))
def test_a_byte_flipped_table_reads_back_whole_or_is_refused_in_one_line(table_bytes, small_values, tmp_path, flips):
    damaged = bytearray(table_bytes)
    for where, mask in flips:
        damaged[int(where * len(damaged))] ^= mask
    _table_reads_back_or_is_refused(tmp_path / "t.npz", bytes(damaged), small_values.astype(np.int8))


def test_flips_in_the_compressed_values_are_one_line_not_a_zlib_traceback(table_bytes, small_values, tmp_path):
    """Every hundredth byte of the deflated values flipped in turn (zlib.error, a bad CRC, a bad digest)."""
    with zipfile.ZipFile(io.BytesIO(table_bytes)) as archive:
        info = archive.getinfo("values.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for offset in range(start, start + info.compress_size, max(1, info.compress_size // 100)):
        damaged = bytearray(table_bytes)
        damaged[offset] ^= 0x5A
        _table_reads_back_or_is_refused(tmp_path / "t.npz", bytes(damaged), small_values.astype(np.int8))


def _crafted_tables(values: np.ndarray) -> dict[str, bytes]:
    good = SolvedTable(SMALL, "draw", values.astype(np.int8))
    header = json.loads(str(np.load(io.BytesIO(good.to_bytes()))["meta"]))
    meta = np.array(json.dumps(header))
    return {
        "negated, digest recomputed": SolvedTable(SMALL, "draw", -values.astype(np.int8)).to_bytes(),
        "shifted, digest recomputed": SolvedTable(SMALL, "draw", np.roll(values, 1).astype(np.int8)).to_bytes(),
        "values int32": _npz(meta=meta, values=values.astype(np.int32)),
        "values float": _npz(meta=meta, values=values.astype(np.float32)),
        "values one short": _npz(meta=meta, values=values[:-1].astype(np.int8)),
        "values 2-d": _npz(meta=meta, values=values.astype(np.int8).reshape(-1, 1)),
        "oversized values": _oversized("values", dict(meta=meta), (10**12,), "|i1"),
        "oversized meta": _oversized("meta", dict(values=values.astype(np.int8)), (), "<U1000000000"),
        "no values": _npz(meta=meta),
        "format 0": _npz(meta=np.array(json.dumps({**header, "format": 0})), values=values.astype(np.int8)),
        "marbles a billion": _npz(meta=np.array(json.dumps({**header, "marbles": 10**9})),
                                  values=values.astype(np.int8)),
        "seconds text": _npz(meta=np.array(json.dumps({**header, "seconds": "x", "digest": "0"})),
                             values=values.astype(np.int8)),
        "not json": _npz(meta=np.array("{"), values=values.astype(np.int8)),
    }


def test_crafted_and_mistyped_tables_are_refused_in_one_line(small_values, tmp_path):
    for case, data in _crafted_tables(small_values).items():
        path = tmp_path / f"{case}.npz"
        path.write_bytes(data)
        with pytest.raises(TableCheckError) as caught:
            SolvedTable.load(path)
        message = one_line(caught.value)
        if "digest recomputed" in case:
            assert "differ from their successors' values" in message, (case, message)


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_table_that_is_no_regular_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "t.npz"
    _special(path, kind)
    with pytest.raises(TableCheckError) as caught:
        within_deadline(lambda: SolvedTable.load(path))
    one_line(caught.value)


def test_a_correct_table_passes_its_check_and_the_sample_is_spread_and_seeded(small_values):
    table = SolvedTable(SMALL, "draw", small_values.astype(np.int8))
    assert table.sample_check() == (0, -1) and table.sample_check(seed=5) == (0, -1)
    for stretch in (slice(0, 1000), slice(-1000, None)):  # a sample spread over the table reaches either end
        wrong = table.values.copy()
        wrong[stretch] = -wrong[stretch]
        assert SolvedTable(SMALL, "draw", wrong).sample_check()[0] > 0


@pytest.mark.parametrize("kind", ["negated", "flipped", "fifo", "folder", "zero", "empty"])
def test_a_cached_table_that_fails_its_check_is_set_aside_and_solved_again(small_values, table_bytes, tmp_path,
                                                                            monkeypatch, kind):
    """The non-solving reader (the web's) gets ``None`` and one line; ``for_variant`` solves the table again."""
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    path = T.cache_path(SMALL)
    for n, suffix in enumerate((".damaged", ".damaged.2")):
        T._LOADED.pop((SMALL, "draw"), None)
        if kind == "negated":
            _put(path, "bytes", SolvedTable(SMALL, "draw", -small_values.astype(np.int8)).to_bytes())
        elif kind == "flipped":
            damaged = bytearray(table_bytes)
            damaged[len(damaged) // 2 + n] ^= 0xFF
            _put(path, "bytes", bytes(damaged))
        else:
            _special(path, kind)
        told: list[str] = []
        if n == 0:
            assert within_deadline(lambda told=told: SolvedTable.cached(SMALL, on_set_aside=told.append)) is None
            ending = "`sumito solve` builds it again"
        else:
            table = within_deadline(lambda told=told: SolvedTable.for_variant(SMALL, on_set_aside=told.append))
            assert np.array_equal(table.values, small_values)
            assert SolvedTable.load(path).digest() == table.digest()
            ending = "solving again"
        (line,) = told
        one_line(ValueError(line))
        assert line.startswith(f"the solved table {path} failed its check (")
        assert line.endswith(f"; set aside as {path}{suffix}; {ending}"), line
        assert os.path.lexists(f"{path}{suffix}")
    T._LOADED.pop((SMALL, "draw"), None)


def test_a_table_replaced_since_it_was_read_is_not_set_aside(tmp_path):
    path = tmp_path / "t.npz"
    path.write_bytes(b"old")
    old = path.stat()
    path.rename(tmp_path / "kept")  # kept: the new file cannot get its inode
    path.write_bytes(b"new, written since")
    assert set_aside(path, same_as=old) is None and path.read_bytes() == b"new, written since"
    assert set_aside(path) == tmp_path / "t.npz.damaged" and not path.exists()


def test_a_lock_file_that_is_a_fifo_is_one_line_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    os.mkfifo(tmp_path / f"{T.variant_name(TINY)}.lock")
    T._LOADED.pop((TINY, "draw"), None)

    def lock():
        with T.solve_lock(TINY):
            pass

    with pytest.raises(SumitoError) as caught:
        within_deadline(lock)
    assert "not a regular file" in one_line(caught.value)


# ------------------------------------------------------------------ the other readers: no hang, one line
def _journal(path):
    return GameJournal(path)


def _archive(path):
    with GameArchive(path, create=False):
        pass


def _web_store(path):
    WebStore(path).conn.close()


OTHER_READERS = {
    "training checkpoint": (load_checkpoint, TrainingError),
    "games journal": (_journal, ArenaError),
    "game archive": (_archive, ArchiveError),
    "web store": (_web_store, WebStoreError),
    "CSV rows": (read_rows, SumitoError),
    "game records": (read_records, RecordError),
}


@pytest.mark.parametrize("kind", ["fifo", "folder", "zero"])
@pytest.mark.parametrize("reader", list(OTHER_READERS))
def test_every_other_reader_refuses_a_file_that_is_no_regular_file_in_one_line(tmp_path, reader, kind):
    read, error = OTHER_READERS[reader]
    path = tmp_path / "file"
    _special(path, kind)
    with pytest.raises(error) as caught:
        within_deadline(lambda: read(path))
    one_line(caught.value)


@DAMAGE
@given(data=st.binary(max_size=300), cut=st.booleans())
def test_npz_archive_reads_anything_in_one_line(tmp_path, data, cut):
    """Arbitrary bytes after a zip's signature, or a real archive cut short: one line or arrays, nothing else."""
    blob = _npz(a=np.arange(10), meta=np.array("{}"))
    content = blob[:len(data) % len(blob)] if cut else b"PK\x03\x04" + data
    try:
        with NpzArchive(content, "x.npz", 1 << 20, "test archive") as archive:
            for name in archive.names:
                archive.array(name)
    except ValueError as exc:
        assert one_line(exc).startswith("x.npz: ")


def test_open_regular_bounds_the_size_before_reading(tmp_path):
    path = tmp_path / "big"
    with open(path, "wb") as fh:
        fh.truncate(10_000)
    with pytest.raises(ValueError, match="larger than 9 KB"):
        open_regular(path, 9 * 1024, "test file")
    with open_regular(path, 10_000, "test file") as fh:
        assert len(fh.read()) == 10_000
