import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # the reference implementation lives beside the tests

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# engines search with one thread unless a test says otherwise, so that fixed-depth searches are deterministic
os.environ.setdefault("SUMITO_THREADS", "1")
