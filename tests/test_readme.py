"""The samples and stated times of the README and the documentation site (docs/*.md) are what the
commands print and what was measured (tools/readme_samples.py), so that a newcomer sees what the pages
say; and every command the ``sumito`` parser has is documented on the site."""

import argparse
import importlib.util
import json
import re
import shlex
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


def test_a_stale_time_or_an_unknown_mark_on_a_docs_page_is_caught(monkeypatch, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in readme_samples.DOCS.glob("*.md"):
        (docs / page.name).write_text(page.read_text())
    marked = next(page for page in sorted(docs.glob("*.md")) if readme_samples.TIME_MARK.search(page.read_text()))
    text = marked.read_text()
    name, said = readme_samples.TIME_MARK.findall(text)[0]
    marked.write_text(text.replace(f"<!-- time {name} -->{said}<!-- /time -->",
                                   f"<!-- time {name} -->an hour<!-- /time -->", 1)
                      + "\n<!-- sample no-such-sample -->\n```\n$ sumito layouts\n```\n")
    monkeypatch.setattr(readme_samples, "DOCS", docs)
    problems = readme_samples.check(names=[])
    assert any("an hour" in problem and marked.name in problem for problem in problems)
    assert any("no-such-sample" in problem for problem in problems)



def test_every_measurement_is_stated_on_some_page():
    """A time in docs/timings.json that no page states is a measurement the pages have lost."""
    stated = {name for page in {readme_samples.README, *readme_samples.pages()}
              for name, _ in readme_samples.TIME_MARK.findall(page.read_text())}
    assert set(readme_samples.timing_texts()) <= stated


def test_the_kernel_runs_and_the_training_rates_give_their_texts(monkeypatch, tmp_path):
    timings = tmp_path / "timings.json"
    timings.write_text(json.dumps({
        "kernels": {"runs": {"Haswell": {"picked": "Haswell"}, "Zen": {"picked": "Haswell"}}},
        "rates": {"bg_train_fresh": {"games_per_min": 1991},
                  "ppo": {"threads_1": {"steps_per_s": 769}, "threads_4": {"steps_per_s": 150}}}}))
    monkeypatch.setattr(readme_samples, "TIMINGS", timings)
    texts = readme_samples.timing_texts()
    assert texts["suite-kernels"] == "Haswell and Zen (its Haswell kernel in this build)"
    assert texts["bg-train-fresh"] == "1,991 games a minute"
    assert texts["ppo-steps"] == "769 steps a second"
    assert texts["ppo-steps-every-core"] == "150 steps a second"

def test_the_suite_count_says_whether_the_optional_gnubg_was_there(monkeypatch, tmp_path):
    """The suite's count includes the GNU Backgammon player's tests only where gnubg-nn is installed (they
    skip without it): the pages say which the recorded run had."""
    timings = tmp_path / "timings.json"
    for had, said in ((True, "with"), (False, "without")):
        timings.write_text(json.dumps({"suite": {"all_s": 600, "fast_s": 120, "all_passed": 1653, "gnubg_nn": had}}))
        monkeypatch.setattr(readme_samples, "TIMINGS", timings)
        assert readme_samples.timing_texts()["suite-gnubg"] == f"{said} the optional `gnubg` extra"


def test_every_sample_that_searches_says_its_one_thread():
    """An engine's moves depend on its threads (by default one a core): a sample that searches names one
    thread in the command the reader copies (the checker runs it with the engine's own default)."""
    for name, sample in readme_samples.SAMPLES.items():
        for command in (*sample.setup, sample.command):
            words = shlex.split(command)
            for at, word in enumerate(words):
                if word.startswith("engine:") or (word == "engine" and at > 1):  # a spec, not `sumito engine`
                    assert "threads=1" in word.partition(":")[2].split(","), (name, command)
            if words[1] == "analyse":
                assert "--engine" in words, (name, command)
            if words[1] == "engine" and "--player" not in words:
                assert "setoption name Threads value 1" in (sample.stdin or "").splitlines(), name


def test_a_training_figure_that_the_committed_runs_do_not_give_is_caught(monkeypatch, tmp_path):
    """docs/lab.md's figures of the first training example come from runs/readme-seeds: a seed whose last
    evaluation went otherwise changes the final band and that seed's curve, and the check says so."""
    import shutil

    seeds = tmp_path / "seeds"
    shutil.copytree(readme_samples.READ_ME_SEEDS, seeds, ignore=shutil.ignore_patterns("*.npz"))
    figures = readme_samples.training_figures(seeds)
    assert figures == readme_samples.training_figures()
    first = min(seeds.glob("s*"), key=lambda run: int(run.name[1:]))
    curve = first / "curve.csv"
    rows = curve.read_text().splitlines()
    cells = rows[-1].split(",")
    cells[-5:-1] = ["100", "0", "100", "0"]  # eval_games, wins, draws, losses: a last evaluation of 0 wins
    curve.write_text("\n".join([*rows[:-1], ",".join(cells)]) + "\n")
    monkeypatch.setattr(readme_samples, "READ_ME_SEEDS", seeds)
    problems = readme_samples.check(names=[])
    assert any("lab-one-seed" in problem and "lab.md" in problem for problem in problems), problems
    assert readme_samples.training_figures()["lab-one-seed"].endswith(", 0")


def test_every_sample_is_marked_once_and_the_rewrite_keeps_every_page():
    seen: dict[str, str] = {}
    for page in readme_samples.pages():
        text = page.read_text()
        for name, _ in readme_samples.SAMPLE_MARK.findall(text):
            assert name not in seen, f"{name} is marked in {seen.get(name)} and {page.name}"
            seen[name] = page.name
        assert readme_samples.rewrite(text, None) == text  # the marks say what docs/timings.json says
    assert seen.keys() == readme_samples.SAMPLES.keys()


def test_every_command_is_documented_on_the_site():
    from sumito.cli import build_parser

    def commands(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
        found = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.append(f"{prefix} {name}")
                    found += commands(sub, f"{prefix} {name}")
        return found

    site = "\n".join(page.read_text() for page in readme_samples.pages())
    missing = [command for command in commands(build_parser(), "sumito")
               if not re.search(rf"{re.escape(command)}(?![\w-])", site)]
    assert missing == []


def test_volatile_numbers_are_set_aside_and_the_rest_compared():
    a = "depth 7, 183,721 nodes in 0.31 s (595,971 nodes/s)\n  1. a5b5  +0.13  a5b5 i6i5"
    b = "depth 7, 183,900 nodes in 1.02 s (180,000 nodes/s)\n  1. a5b5  +0.13  a5b5 i6i5"
    assert readme_samples.normalise(a) == readme_samples.normalise(b)
    assert readme_samples.normalise(a) != readme_samples.normalise(a.replace("+0.13", "+0.12"))
    # a right-aligned column: a time one digit shorter is padded by one more space
    assert readme_samples.normalise("│    21 µs │") == readme_samples.normalise("│     9 µs │")
    assert readme_samples.normalise("│    21 µs │") != readme_samples.normalise("│    21 µs  │")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(readme_samples.SAMPLES))
def test_the_readme_sample_is_what_the_command_prints(name):
    assert readme_samples.check(names=[name]) == []
