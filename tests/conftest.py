import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

# The suite never writes into the user's home or caches: before anything imports sumito (which reads the
# cache folders at import), HOME and every XDG folder point into one temporary folder for this test session.
# Compiled kernels are the one thing kept between sessions, in the system's temporary folder (a folder per
# version of the source, as everywhere: sumito.jit.numba_cache_dir), so that a second run does not compile again;
# a solved table is built once a session, in the session's folder.
# pytest-xdist's workers inherit this environment from the main process, so they share its home (and the mini
# table solved there: tables are solved under a lock, sumito.solve.table.solve_lock) and know the user's.
REAL_HOME = Path(os.environ.get("SUMITO_TEST_REAL_HOME") or os.path.expanduser("~"))
TEST_HOME = Path(os.environ.get("SUMITO_TEST_HOME") or tempfile.mkdtemp(prefix="sumito-test-home-"))
os.environ["SUMITO_TEST_REAL_HOME"] = str(REAL_HOME)
os.environ["SUMITO_TEST_HOME"] = str(TEST_HOME)
os.environ["HOME"] = str(TEST_HOME)
for _name, _sub in (("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"),
                    ("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state")):
    os.environ[_name] = str(TEST_HOME / _sub)
os.environ.pop("SUMITO_SOLVED_DIR", None)
os.environ["NUMBA_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "sumito-test-numba")
os.environ["MPLCONFIGDIR"] = str(TEST_HOME / ".config" / "matplotlib")
# pytest-xdist's workers are started with COLUMNS=80 and LINES=24; the main process's own values (none, when
# piped) go to the workers instead, so that a test sees the console width a plain run gives it
if "PYTEST_XDIST_WORKER" not in os.environ:
    for _name in ("COLUMNS", "LINES"):
        os.environ[f"SUMITO_TEST_{_name}"] = os.environ.get(_name, "")
for _name in ("COLUMNS", "LINES"):
    _kept = os.environ.get(f"SUMITO_TEST_{_name}")
    if _kept == "":
        os.environ.pop(_name, None)
    elif _kept is not None:
        os.environ[_name] = _kept

import pytest  # noqa: E402  (after the folders above: a plugin may read them at import)
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: E402

# A suite started in the background of a non-interactive shell (`pytest &` in a script, a tool's subprocess of
# one) inherits SIGINT ignored, and every program a test starts would too: the Ctrl-C tests would then wait
# for programs that cannot be interrupted. A handler here (Python's own) makes each child start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

sys.path.insert(0, os.path.dirname(__file__))  # the reference implementation lives beside the tests

# hypothesis's failing examples are kept between sessions beside the kernels, not in the working folder
_EXAMPLES = DirectoryBasedExampleDatabase(os.path.join(tempfile.gettempdir(), "sumito-test-hypothesis"))
settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          database=_EXAMPLES)
settings.register_profile("thorough", max_examples=1000, deadline=None, database=_EXAMPLES)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# engines search with one thread unless a test says otherwise, so that fixed-depth searches are deterministic
os.environ.setdefault("SUMITO_THREADS", "1")
# no compile notice in any test's output: whether a test compiles a kernel depends on the cache, not on the test
os.environ["SUMITO_COMPILE_NOTICE"] = "0"


# Tests that took more than SLOW_SECONDS in the last measured full run (tests/durations.json, written by
# `python tools/readme_samples.py --measure suite`) are marked slow, as are those marked in their code:
# `pytest -m "not slow"` is the fast subset for development.
SLOW_SECONDS = 1.0
_DURATIONS_FILE = os.path.join(os.path.dirname(__file__), "durations.json")


def pytest_collection_modifyitems(config, items):
    try:
        with open(_DURATIONS_FILE) as f:
            durations = json.load(f)
    except (OSError, ValueError):
        return
    for item in items:
        if durations.get(item.nodeid, 0.0) > SLOW_SECONDS:
            item.add_marker(pytest.mark.slow)


# ---- the user's home is left alone -------------------------------------------------------------------------------
# What the suite could write there if a folder above leaked: new entries in the home folder and its XDG folders,
# and any change inside Sumito's own folders there. Checked when the session ends; a change fails the session.
_XDG_TOPS = (".cache", ".config", ".local/share", ".local/state")


def _other_versions_kernels(folder: str) -> bool:
    """Whether ``folder`` is numba's cache for another version of Sumito's source in the real home: what
    another checkout or a command run beside the suite writes there, not this suite (whose kernels, had its
    cache folder leaked, would go to this version's folder, which is checked)."""
    parent = os.path.join(REAL_HOME, ".cache", "sumito", "numba")
    return os.path.dirname(folder) == parent and os.path.basename(folder) != _OWN_KERNELS


def _home_snapshot() -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for top in ("", *_XDG_TOPS):
        try:
            with os.scandir(REAL_HOME / top) as entries:
                for entry in entries:
                    found[entry.path] = (0, 0)  # the names only: a file there may change for its own reasons
        except OSError:
            continue
        for folder, subfolders, files in os.walk(REAL_HOME / top / "sumito") if top else ():
            subfolders[:] = [d for d in subfolders if not _other_versions_kernels(os.path.join(folder, d))]
            for name in files:
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                found[os.path.join(folder, name)] = (st.st_size, st.st_mtime_ns)
    return found


from sumito.jit import numba_cache_dir  # noqa: E402  (after NUMBA_CACHE_DIR is set above)

_OWN_KERNELS = os.path.basename(numba_cache_dir())  # this source version's folder name in a numba cache
_HOME_BEFORE = _home_snapshot()


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the main process checks, once every worker is done
    shutil.rmtree(TEST_HOME, ignore_errors=True)
    after = _home_snapshot()
    changed = sorted(set(after) - set(_HOME_BEFORE))
    changed += sorted(k for k in _HOME_BEFORE if after.get(k) != _HOME_BEFORE[k])
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        session.config.get_terminal_writer().line(f"the suite changed the user's home folder: {shown}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
