"""The ``sumito`` command line, called in-process through ``main`` (and once as a real command)."""

import argparse
import re
import subprocess
import sys

import pytest

from sumito.cli import main
from sumito.games.abalone import LAYOUTS, Position, parse_records, read_records

STANDARD = LAYOUTS["standard"].position_string


def run(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sumito argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


def last_line(text):
    return text.strip().splitlines()[-1]


# ------------------------------------------------------------------ perft
def test_console_script_smoke():
    proc = subprocess.run(
        [sys.executable, "-m", "sumito", "perft", "--layout", "standard", "--depth", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert last_line(proc.stdout) == "44"


@pytest.mark.parametrize("depth,expected", [(0, 1), (1, 44), (2, 1_936), (3, 98_912)])
def test_perft(capsys, depth, expected):
    out = ok(capsys, "perft", "--depth", str(depth))
    assert last_line(out) == str(expected)


def test_perft_reports_timing_on_stderr(capsys):
    code, out, err = run(capsys, "perft", "--depth", "2")
    assert code == 0
    assert out.strip() == "1936"
    assert err.startswith("perft(2) in ")


def test_perft_divide_sums_to_total(capsys):
    out = ok(capsys, "perft", "--depth", "3", "--divide")
    lines = out.strip().splitlines()
    total = int(lines[-1])
    assert total == 98_912
    assert lines[-2] == "moves: 44"
    counts = {}
    for line in lines[:-2]:
        move, n = line.split(": ")
        counts[move] = int(n)
    assert len(counts) == 44
    assert sum(counts.values()) == total
    start = Position.start("standard")
    assert set(counts) == {m.notation() for m in start.legal_moves()}
    assert counts["a1b2"] == start.play("a1b2").perft(2)


def test_perft_other_layouts(capsys):
    assert last_line(ok(capsys, "perft", "--layout", "belgian-daisy", "--depth", "2")) == "2692"
    assert last_line(ok(capsys, "perft", "--layout", "German Daisy", "--depth", "1")) == "80"
    expected = Position.start("mini").perft(3)
    assert last_line(ok(capsys, "perft", "--layout", "mini", "--depth", "3")) == str(expected)


def test_perft_from_position_and_moves(capsys):
    pos = Position.start("standard").play("a1b2").play("i5h4")
    assert last_line(ok(capsys, "perft", "--depth", "2", "--moves", "a1b2", "i5h4")) == str(pos.perft(2))
    out = ok(capsys, "perft", "--depth", "2", "--position", pos.to_string())
    assert last_line(out) == str(pos.perft(2))


def test_perft_inline_only_and_win_threshold(capsys):
    inline = Position.start("standard", inline_only=True)
    assert last_line(ok(capsys, "perft", "--depth", "2", "--inline-only")) == str(inline.perft(2))
    assert inline.perft(2) < 1936


# ------------------------------------------------------------------ moves
def test_moves(capsys):
    out = ok(capsys, "moves")
    moves = out.split()
    assert len(moves) == 44 == len(set(moves))
    assert set(moves) == {m.notation() for m in Position.start("standard").legal_moves()}


def test_moves_successors(capsys):
    lines = ok(capsys, "moves", "--successors", "--layout", "mini").strip().splitlines()
    start = Position.start("mini")
    assert len(lines) == start.count_legal_moves()
    for line in lines:
        move, position = line.split(" ", 1)
        child = Position.from_string(position)
        assert child == start.play(move)
        assert child.to_string() == position


def test_moves_after_moves_for_white(capsys):
    out = ok(capsys, "moves", "--moves", "a1b2")
    pos = Position.start("standard").play("a1b2")
    assert out.split() == [m.notation() for m in pos.legal_moves()]


# ------------------------------------------------------------------ show, layouts
def test_show_position(capsys):
    text = "w1w/1ww1/5/1bb1/bb1 w 1 1 5"
    out = ok(capsys, "show", "--position", text)
    lines = out.strip().splitlines()
    assert lines[-1] == text
    assert lines[0].strip().startswith("e O . O")
    assert "White to move, move 5. Lost: Black 1, White 1 (of 2 to lose)." in out


def test_show_default_and_win_option(capsys):
    out = ok(capsys, "show", "--win", "3")
    assert last_line(out) == STANDARD
    assert "(of 3 to lose)" in out
    assert out.count("@") == 14 and out.count("O") == 14


def test_show_after_moves(capsys):
    out = ok(capsys, "show", "--moves", "a1b2", "i5h4", "--layout", "standard")
    expected = Position.start("standard").play("a1b2").play("i5h4")
    assert last_line(out) == expected.to_string()
    assert "Black to move, move 2." in out


def test_layouts(capsys):
    lines = ok(capsys, "layouts").splitlines()
    assert len(LAYOUTS) == 10
    assert len(lines) == 20
    names = [line.split()[0] for line in lines[0::2]]
    assert names == list(LAYOUTS)
    for line, layout in zip(lines[1::2], LAYOUTS.values()):
        assert line.strip() == layout.position_string
        Position.from_string(line.strip(), layout.variant)
    assert lines[0].startswith("standard       side 5, 14 marbles, 6 to win:")


# ------------------------------------------------------------------ game, replay
GAME = ("game", "--black", "random:seed=1", "--white", "random:seed=2", "--layout", "mini")


def test_game_writes_a_record_that_replays(capsys, tmp_path):
    path = tmp_path / "game.txt"
    out = ok(capsys, *GAME, "--out", str(path))
    text = path.read_text()
    assert out.endswith(text)  # the board, then the record
    assert "Lost:" in out[: len(out) - len(text)]
    (record,) = read_records(path)
    assert record.tags["Black"] == "random:seed=1" and record.tags["White"] == "random:seed=2"
    assert record.tags["Layout"] == "mini"
    outcome = record.game.outcome()
    assert outcome is not None and record.result == outcome.result
    assert record.tags["Plies"] == str(record.game.plies)

    out = ok(capsys, "replay", str(path), "--ply", "3")
    lines = out.strip().splitlines()
    assert lines[0] == f"random:seed=1 (Black) vs random:seed=2 (White), {record.result}"
    assert lines[1] == f"after ply 3: {record.game.moves[2].notation()}"
    assert lines[-1] == record.game.positions[3].to_string()
    assert "result:" not in out

    out = ok(capsys, "replay", str(path))
    assert last_line(out) == f"result: {outcome.result}, {outcome.describe()}"
    assert record.game.position.to_string() in out

    out = ok(capsys, "replay", str(path), "--ply", "0", "--game", "1")
    assert "after ply" not in out
    assert last_line(out) == LAYOUTS["mini"].position_string


def test_game_is_deterministic(capsys, tmp_path):
    first = ok(capsys, *GAME, "--quiet", "--out", str(tmp_path / "a.txt"))
    second = ok(capsys, *GAME, "--quiet", "--out", str(tmp_path / "b.txt"))
    assert first == second
    assert first.startswith('[Event "Sumito game"]')  # --quiet prints the record only
    assert (tmp_path / "a.txt").read_text() == first == (tmp_path / "b.txt").read_text()
    other = ok(capsys, "game", "--black", "random:seed=3", "--white", "random:seed=2", "--layout", "mini", "--quiet")
    assert other != first


def test_game_draw_rule_options(capsys):
    out = ok(capsys, "game", "--max-plies", "6", "--repetitions", "0", "--quiet")
    # without players, the strongest engine plays itself
    spec = "engine:nnue=builtin-nnue,time=0.1"
    assert f'[Black "{spec}"]' in out and f'[White "{spec}"]' in out
    assert '[MaxPlies "6"]' in out and '[Repetitions "off"]' in out
    assert '[Reason "ply-cap"]' in out and '[Plies "6"]' in out


# ------------------------------------------------------------------ bad input
def test_replay_of_a_second_game(capsys, tmp_path):
    path = tmp_path / "two.txt"
    ok(capsys, *GAME, "--quiet", "--out", str(tmp_path / "one.txt"))
    one = (tmp_path / "one.txt").read_text()
    path.write_text(one + "\n" + one.replace("random:seed=1", "someone"))
    out = ok(capsys, "replay", str(path), "--game", "2")
    assert out.startswith("someone (Black) vs random:seed=2 (White)")


@pytest.fixture
def files(tmp_path, capsys):
    """Paths to put into bad command lines: a one-game record file and some bad files."""
    ok(capsys, *GAME, "--quiet", "--out", str(tmp_path / "game.txt"))
    (tmp_path / "latin1.txt").write_bytes(b'[Event "caf\xe9"]\n')
    (tmp_path / "bad.txt").write_text('[Layout "standard"]\n\n1. a1b1 a1b1 *\n')
    (tmp_path / "notes.txt").write_text("# notes\nnot a record\n")
    return {"game": tmp_path / "game.txt", "tmp": tmp_path}


START = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0"  # a position string less its move number
BAD_INPUT = {
    "malformed position": (["show", "--position", "xyz"], "5 fields"),
    "bad position row": (["moves", "--position", "www/1ww1/5/1bb1/bbq b 0 0 1"], "unexpected character 'q'"),
    "unknown layout": (["show", "--layout", "nosuch"], "unknown layout 'nosuch'"),
    "unknown layout in perft": (["perft", "--layout", "nosuch", "--depth", "1"], "unknown layout"),
    "illegal move": (["show", "--moves", "a1b2", "a1b2"], r"move 2: a1b2 is not legal"),
    "malformed move": (["moves", "--moves", "a1b2", "zz"], r"'zz' is not a move"),
    "unknown player": (["game", "--black", "nosuch"], "unknown player 'nosuch'"),
    "bad player option": (["game", "--white", "random:foo=1"], "player 'random' has no option 'foo'"),
    "bad player option value": (["game", "--black", "random:seed=x"], "must be int"),
    "bad win threshold": (["show", "--win", "99"], "win threshold must be between 1 and 14"),
    "bad draw rule": (["game", "--layout", "mini", "--max-plies", "-1"], "--max-plies: .*digits 0-9, not '-1'"),
    "missing file": (["replay", "{tmp}/nosuch.txt"], "cannot read .*nosuch.txt: No such file or directory"),
    "non-UTF-8 file": (["replay", "{tmp}/latin1.txt"], r"not a text file \(not UTF-8\)"),
    "bad record": (["replay", "{tmp}/bad.txt"], r"bad\.txt, line 3: move 2 \(a1b1\)"),
    "no such game": (["replay", "{game}", "--game", "5"], r"holds 1 game\(s\); there is no game 5"),
    "game 0": (["replay", "{game}", "--game", "0"], "--game: the value must be from 1 to 1000000, not 0"),
    "no such ply": (["replay", "{game}", "--ply", "100000"], "there is no ply 100000"),
    "negative ply": (["replay", "{game}", "--ply", "-1"], "--ply: .*digits 0-9, not '-1'"),
    "negative depth": (["perft", "--depth", "-1"], "--depth: .*digits 0-9, not '-1'"),
    "huge depth": (["perft", "--depth", "50"], "--depth: the value must be from 0 to 20, not 50"),
    "5,000-digit depth": (["perft", "--depth", "9" * 5000], "--depth: the value must be from 0 to 20, not 999"),
    "superscript digit": (["show", "--position", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb\u00b2 b 0 0 1"],
                          "row a: unexpected character '\u00b2'"),
    "huge run": (["show", "--position", "1000000000000000000000/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1"],
                 "row i: '10000000...' is not a run of empty cells"),
    "5,000-digit move number": (["show", "--position", START + " " + "1" * 5000], "at most 1000 characters"),
    "huge move number": (["show", "--position", START + " " + "1" * 50], "move number must be at most 1000000000"),
    "out into a missing folder": (["game", "--out", "{tmp}/nosuch/game.txt"], "there is no folder .*nosuch"),
    "out is a folder": (["game", "--out", "{tmp}"], "is a folder; give a file name"),
    "not a record": (["replay", "{tmp}/notes.txt"], r"notes\.txt is not a game record: line 1 starts with '#'"),
    "unknown option": (["perft", "--depth", "3", "--fast"], "unrecognized arguments: --fast"),
    "spec out of range": (["game", "--black", "engine:depth=99"], r"depth=99 is out of range; .* within \[1, 64\]"),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_one_error_line(capsys, files, case):
    argv, pattern = BAD_INPUT[case]
    code, out, err = run(capsys, *(arg.format(**files) for arg in argv))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("sumito: error: ")
    assert re.search(pattern, err), err


def test_game_streams_its_moves_and_ends_with_the_result_in_words(capsys):
    code, out, err = run(capsys, "game", "--black", "greedy", "--white", "random:seed=1", "--layout", "mini")
    assert code == 0, err
    lines = err.splitlines()
    assert lines[0].startswith("1. Black ") and lines[1].startswith("1... White ")
    assert lines[-1].startswith("Result: 1-0, Black wins (push-off) after ")
    assert "Black has won, move" in out and "to move" not in out  # the final board says who won
    assert parse_records(out[out.index("[Event"):])[0].result == "1-0"


def test_version_and_python_dash_m(capsys):
    import subprocess
    import sys

    from sumito import __version__

    proc = subprocess.run([sys.executable, "-m", "sumito", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == f"sumito {__version__}"


def test_players_lists_both_games_with_options(capsys):
    out = ok(capsys, "players")
    assert "Abalone players" in out and "Backgammon players" in out
    assert "    depth=int [1..64] (unset by default): search depth" in out  # the engine's, with its range
    # no "default none" beside a help that names the default (the engine's nnue= is builtin-nnue)
    assert "default none" not in out and "    nnue=str: an NNUE file" in out
    assert "seed=int [0..9223372036854775807] (unset by default)" in out
    assert "  pubeval " in out and "  td " in out


def test_plain_td_is_the_shipped_network_in_both_games():
    from sumito.players import make_player
    from sumito.players.backgammon.players import make_bg_player

    assert make_player("td") is not None
    assert make_bg_player("td").name.endswith("bg-wiering7.npz")


# ------------------------------------------------------------------ the command table
def test_help_and_version_import_no_command_and_no_numba():
    probe = ("import sys\nfrom sumito.cli import main\n"
             "for argv in (['--help'], ['--version']):\n"
             "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('numba', 'numpy', 'sumito.cli.', 'sumito.games'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['sumito.cli.table']"


def test_a_command_imports_only_its_own_module_of_the_command_line():
    probe = ("import sys\nfrom sumito.cli import main\nmain(['layouts'])\n"
             "print(sorted(m for m in sys.modules if m.startswith('sumito.cli.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip().splitlines()[-1] == (
        "['sumito.cli.options', 'sumito.cli.options.rules', 'sumito.cli.rules', 'sumito.cli.table']")


def test_each_module_declares_exactly_the_commands_the_table_gives_it():
    import importlib

    from sumito.cli.table import COMMANDS

    class Recorder:
        def __init__(self):
            self.names = []

        def add_parser(self, name, **options):
            assert "help" not in options, f"{name}: its one line of help is the table's"
            self.names.append(name)
            return argparse.ArgumentParser()

    for module in sorted({c.module for c in COMMANDS.values()}):
        recorder = Recorder()
        importlib.import_module(f"sumito.cli.options.{module}").add_parsers(recorder)
        assert sorted(recorder.names) == sorted(c.name for c in COMMANDS.values() if c.module == module), module


def test_the_architecture_page_lists_the_command_table_and_each_page_explains_its_command():
    from pathlib import Path

    from sumito.cli.table import COMMANDS

    docs = Path(__file__).resolve().parents[1] / "docs"
    page = (docs / "architecture.md").read_text()
    rows = re.findall(r"^\| `sumito ([\w-]+)` \| `cli/(\w+)\.py` \| (.+?) \| \[([\w.-]+)\]", page, re.M)
    assert rows == [(c.name, c.module, c.help, c.page) for c in COMMANDS.values()]
    for c in COMMANDS.values():
        assert f"sumito {c.name}" in (docs / c.page).read_text(), f"docs/{c.page} does not mention sumito {c.name}"


def test_help_lists_the_commands_in_their_groups(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.index("play and watch:") < out.index("    play ") < out.index("    serve ") < out.index("    match ")
    assert out.index("    match ") < out.index("    perft ") < out.index("    train ")
