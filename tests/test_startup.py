"""A command pays only for what it runs: the command line parses before it loads any command's code.

``sumito --help``, ``--version`` and every ``sumito COMMAND --help`` read only the light modules (the standard
library, :mod:`sumito.defaults`, :mod:`sumito.bounds`, :mod:`sumito.cliargs`, the layouts and draw rules):
no numpy, numba or engine. ``bench/bench_startup.py`` times them beside python-chess's import.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from sumito.cli import build_parser
from sumito.cli.table import COMMANDS

#: what a command's help must not load: the array and compiler libraries, and the engine's layers
HEAVY = ("numpy", "numba", "torch", "sumito.games.abalone.position", "sumito.players", "sumito.arena",
         "sumito.search", "sumito.learn.zero", "sumito.web.app")


def loaded_after(argv_list: list[list[str]]) -> list[str]:
    """The heavy modules loaded in a fresh interpreter after ``main(argv)`` for each argv of the list."""
    probe = ("import sys\nfrom sumito.cli import main\n"
             f"for argv in {argv_list!r}:\n"
             "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
             f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return eval(out.stdout.strip().splitlines()[-1])


def test_every_command_help_loads_no_numpy_numba_or_engine():
    helps = [[name, "--help"] for name in COMMANDS]
    helps += [["bg", sub, "--help"] for sub in ("show", "moves", "game", "match", "train", "play")]
    helps += [["solve", "score", "--help"], ["nnue", "gen", "--help"], ["nnue", "train", "--help"],
              ["nnue", "loop", "--help"], ["zero", "train", "--help"], ["zero", "analyse", "--help"]]
    assert loaded_after([["--help"], ["--version"], *helps]) == []


def test_a_usage_error_loads_no_engine_either():
    # a typo is answered before the command's code loads (one line, status 2)
    assert loaded_after([["perft", "--depth", "x"], ["match", "--games", "-1"]]) == []


def test_the_probe_sees_a_heavy_module_when_one_is_loaded():
    assert "numpy" in loaded_after([["layouts"]])


def test_each_options_module_imports_only_light_modules():
    for module in sorted({c.module for c in COMMANDS.values()}):
        probe = (f"import sys\nimport sumito.cli.options.{module}\n"
                 f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
        assert out.stdout.strip() == "[]", f"sumito.cli.options.{module} loads {out.stdout.strip()}"


def subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in subparsers(sub))


def test_every_command_names_a_handler_its_module_has():
    parser = build_parser()
    checked = 0
    for name, sub in subparsers(parser):
        run = sub.get_default("command_handler")
        if run is None:
            continue  # a group of subcommands (bg, nnue, zero): each of its own names a handler
        top = name.split()[0]
        module = importlib.import_module(f"sumito.cli.{COMMANDS[top].module}")
        assert callable(getattr(module, run, None)), f"sumito {name}: sumito.cli.{COMMANDS[top].module} has no {run}"
        checked += 1
    assert checked >= len(COMMANDS)


@pytest.mark.parametrize("argv", [["--version"], ["perft", "--help"]])
def test_the_program_answers_help_and_version(argv):
    done = subprocess.run([sys.executable, "-m", "sumito", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(("sumito ", "usage: sumito")), done.stderr
