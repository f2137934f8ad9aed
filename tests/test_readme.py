"""The README's samples and stated times are what the commands print and what was measured
(tools/readme_samples.py), so that a newcomer sees what the README says."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("readme_samples", ROOT / "tools" / "readme_samples.py")
readme_samples = importlib.util.module_from_spec(spec)
sys.modules["readme_samples"] = readme_samples  # its dataclasses look their module up there
spec.loader.exec_module(readme_samples)


def test_every_mark_is_known_and_every_time_is_the_measured_one():
    assert readme_samples.check(names=[]) == []


def test_a_time_that_differs_from_the_measurement_is_caught(monkeypatch, tmp_path):
    readme = tmp_path / "README.md"
    text = readme_samples.README.read_text()
    name, said = readme_samples.TIME_MARK.findall(text)[0]
    readme.write_text(text.replace(f"<!-- time {name} -->{said}<!-- /time -->",
                                   f"<!-- time {name} -->about a minute<!-- /time -->", 1))
    monkeypatch.setattr(readme_samples, "README", readme)
    assert any("about a minute" in problem for problem in readme_samples.check(names=[]))


def test_volatile_numbers_are_set_aside_and_the_rest_compared():
    a = "depth 7, 183,721 nodes in 0.31 s (595,971 nodes/s)\n  1. a5b5  +0.13  a5b5 i6i5"
    b = "depth 7, 183,900 nodes in 1.02 s (180,000 nodes/s)\n  1. a5b5  +0.13  a5b5 i6i5"
    assert readme_samples.normalise(a) == readme_samples.normalise(b)
    assert readme_samples.normalise(a) != readme_samples.normalise(a.replace("+0.13", "+0.12"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(readme_samples.SAMPLES))
def test_the_readme_sample_is_what_the_command_prints(name):
    assert readme_samples.check(names=[name]) == []
