import os
import stat
import subprocess
import sys
import time

import pytest

from sumito.fileio import atomic_write_text, remove_stale_temps


def test_atomic_write_replaces_whole_and_keeps_ordinary_permissions(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    ordinary = stat.S_IMODE(os.stat(path).st_mode)
    atomic_write_text(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(os.stat(path).st_mode) == ordinary  # not mkstemp's private 0600
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]  # no temporary file left behind


def test_the_temporary_file_a_kill_leaves_is_removed_on_the_next_open(tmp_path):
    target = tmp_path / "checkpoint.npz"
    target.write_text("whole")
    # a writer killed between writing its temporary file and renaming it over the target
    script = (
        "import os, sys\n"
        "from sumito import fileio\n"
        "fileio.os.replace = lambda *a: os._exit(9)\n"
        "fileio.atomic_write_text(sys.argv[1], 'new')\n"
    )
    assert subprocess.run([sys.executable, "-c", script, str(target)]).returncode == 9
    (left,) = [p for p in tmp_path.iterdir() if p != target]
    assert left.name.startswith(".checkpoint.npz.pid") and left.name.endswith(".tmp")
    assert target.read_text() == "whole"  # the kill never half-writes the file itself
    assert remove_stale_temps(tmp_path) == []  # seconds old: its writer might be on another machine
    os.utime(left, (time.time() - 5, time.time() - 5))
    assert remove_stale_temps(tmp_path) == [left]
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.npz"]


def test_a_ctrl_c_just_after_the_temporary_file_is_made_leaves_none(tmp_path, monkeypatch):
    """Ctrl-C lands between bytecodes: one that lands just after the temporary file exists (inside
    ``tempfile.mkstemp``, before it returns the name) left the file behind (``sumito nnue gen``, found by
    experiments/probe_kills.py)."""
    real_open = os.open

    def open_then_interrupted(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if os.fspath(path).endswith(".tmp"):
            os.close(fd)
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(tmp_path / "chunk.npz", "data")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []
