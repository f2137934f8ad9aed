import os
import stat

from sumito.fileio import atomic_write_text


def test_atomic_write_replaces_whole_and_keeps_ordinary_permissions(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    ordinary = stat.S_IMODE(os.stat(path).st_mode)
    atomic_write_text(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(os.stat(path).st_mode) == ordinary  # not mkstemp's private 0600
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]  # no temporary file left behind
