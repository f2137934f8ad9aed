import json
import os
import signal
import sys

import pytest
from hypothesis import HealthCheck, settings

# A suite started in the background of a non-interactive shell (`pytest &` in a script, a tool's subprocess of
# one) inherits SIGINT ignored, and every program a test starts would too: the Ctrl-C tests would then wait
# for programs that cannot be interrupted. A handler here (Python's own) makes each child start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

sys.path.insert(0, os.path.dirname(__file__))  # the reference implementation lives beside the tests

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None)
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
