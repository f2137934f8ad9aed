"""tools/journal_rename.py: a player's new name in a journal, the games and their keys kept consistent."""

import importlib.util
import json
from pathlib import Path

from sumito.arena.executor import InlineExecutor
from sumito.arena.journal import GameJournal, task_key
from sumito.arena.match import ArenaSettings, schedule
from sumito.games.abalone import DrawRules

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("journal_rename", ROOT / "tools" / "journal_rename.py")
journal_rename = importlib.util.module_from_spec(spec)
spec.loader.exec_module(journal_rename)


def test_only_whole_option_values_are_renamed():
    rename = journal_rename.rename_spec
    assert rename("engine:time=0.1,nnue=builtin-nnue", "builtin-nnue", "expert-nnue") == \
        "engine:time=0.1,nnue=expert-nnue"
    assert rename("engine:nnue=builtin-nnue-2", "builtin-nnue", "x") == "engine:nnue=builtin-nnue-2"
    assert rename("random", "builtin-nnue", "x") == "random"


def test_a_renamed_journal_gives_its_games_to_the_new_spelling(tmp_path):
    path = tmp_path / "games.jsonl"
    settings = ArenaSettings.from_layout("standard", seed=3, rules=DrawRules(max_plies=20))
    old = schedule(["random:seed=11", "random:seed=2"], 2, settings)
    list(GameJournal(path).play(InlineExecutor(), old))
    # (a seed stands for a name here: the mechanics are the same)
    assert journal_rename.rename_journal(path, "11", "12") == 2
    new = schedule(["random:seed=12", "random:seed=2"], 2, settings)
    journal = GameJournal(path)
    assert set(journal.done) == {task_key(t) for t in new}  # the same command with the new name replays nothing
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert all("seed=12" in (r["result"]["task"]["black"] + r["result"]["task"]["white"]) for r in rows)
    assert not any("seed=11" in line for line in path.read_text().splitlines())


def test_a_default_made_explicit_only_where_the_spec_left_it_out():
    add = journal_rename.add_option
    assert add("engine:time=0.1,nnue=expert-nnue", "threats", "1") == "engine:time=0.1,nnue=expert-nnue,threats=1"
    assert add("engine:time=0.1,threats=0", "threats", "1") == "engine:time=0.1,threats=0"
    assert add("engine", "threats", "1") == "engine:threats=1"
    assert add("abla:depth=4", "threats", "1") == "abla:depth=4"


def test_adding_an_option_keeps_the_journal_consistent(tmp_path):
    path = tmp_path / "games.jsonl"
    settings = ArenaSettings.from_layout("standard", seed=3, rules=DrawRules(max_plies=20))
    players = ["engine:depth=1,threads=1,contempt=0.5", "engine:depth=1,threads=1"]
    list(GameJournal(path).play(InlineExecutor(), schedule(players, 2, settings)))
    changed = journal_rename.rewrite_journal(path, lambda spec: journal_rename.add_option(spec, "contempt", "0.02"))
    assert changed == 2  # the second engine gains the option; the first keeps its own
    now = ["engine:depth=1,threads=1,contempt=0.5", "engine:depth=1,threads=1,contempt=0.02"]
    assert set(GameJournal(path).done) == {task_key(t) for t in schedule(now, 2, settings)}
