"""``sumito engine``: the UCI-like text protocol, driven in-process through string streams."""

import io
import subprocess
import sys

import pytest

from sumito.cli import main
from sumito.engine import LAYOUTS, Move, Position
from sumito.players import player_names
from sumito.players.base import _REGISTRY, Option, PlayerKind
from sumito.protocol import EngineProtocol, default_spec, run_engine, spec_with_depth

from helpers import position_with

STANDARD = LAYOUTS["standard"].position_string


def talk(*lines, player="random:seed=3"):
    """The engine's output lines for the input ``lines``."""
    out = io.StringIO()
    code = run_engine(player, io.StringIO("".join(line + "\n" for line in lines)), out)
    assert code == 0
    return out.getvalue().splitlines()


def bestmove(lines):
    assert lines[-1].startswith("bestmove "), lines
    return lines[-1].split()[1]


class Probe:
    """A player that records what it was asked and plays the first legal move."""

    def __init__(self, depth=1):
        self.name = f"probe:depth={depth}"
        self.depth = depth
        self.calls = []

    def choose(self, position, movetime=None, history=None):
        self.calls.append((position.to_string(), movetime))
        return position.legal_moves()[0]


@pytest.fixture
def probe_kind(monkeypatch):
    """A ``probe`` player kind with a depth option, registered for one test; the players it built."""
    player_names()  # load the built-in players before the registry holds anything else
    built = []

    def factory(depth):
        player = Probe(depth)
        built.append(player)
        return player

    kind = PlayerKind("probe", factory, {"depth": Option(int, 1, "depth")}, "test player")
    monkeypatch.setitem(_REGISTRY, "probe", kind)
    return built


# ------------------------------------------------------------------ the basics
def test_isready_and_quit_stop_reading():
    assert talk("isready", "quit", "isready") == ["readyok"]


def test_end_of_input_quits():
    assert talk() == []
    assert talk("isready") == ["readyok"]


def test_blank_lines_are_ignored():
    assert talk("", "   ", "isready") == ["readyok"]


def test_go_from_the_start_gives_a_legal_move():
    lines = talk("go")
    assert lines[0].startswith("info time ") and lines[0].endswith("ms")
    Position.start().parse_move(bestmove(lines))


def test_go_after_startpos_moves():
    lines = talk("position startpos moves c3d3 g7f7", "go")
    after = Position.start().play("c3d3").play("g7f7")
    after.parse_move(bestmove(lines))


def test_go_from_a_position_string():
    pos = Position.start("belgian-daisy").play("a1b1")
    lines = talk(f"position {pos.to_string()}", "d", "go")
    assert pos.to_string() in lines
    pos.parse_move(bestmove(lines))


def test_position_string_with_moves():
    lines = talk(f"position {STANDARD} moves c3d3", "d")
    assert lines[-1] == Position.start().play("c3d3").to_string()
    assert "moves c3d3" in lines


def test_position_layout_win_and_inline_only():
    lines = talk("position startpos layout mini win 1 inline-only moves a1b2", "d", "moves")
    expected = Position.start("mini", win_threshold=1, inline_only=True).play("a1b2")
    assert expected.to_string() in lines
    assert "(of 1 to lose)" in "\n".join(lines)
    legal = lines[-1].split()[1:]
    assert sorted(legal) == sorted(m.notation() for m in expected.legal_moves())
    assert all(len(m) == 4 for m in legal)  # inline moves only


def test_position_string_with_win_and_inline_only():
    lines = talk(f"position {STANDARD} win 2 inline-only", "d", "moves")
    assert "(of 2 to lose)" in "\n".join(lines)
    assert all(len(m) == 4 for m in lines[-1].split()[1:])


def test_moves_lists_the_legal_moves():
    lines = talk("moves")
    assert lines[0].startswith("moves ")
    assert sorted(lines[0].split()[1:]) == sorted(m.notation() for m in Position.start().legal_moves())


def test_show_and_d_draw_the_board():
    lines = talk("show", "d")
    assert lines.count(STANDARD) == 2
    assert any(line.strip().startswith("i O O O O O") for line in lines)


def test_help_lists_the_commands():
    text = "\n".join(talk("help"))
    for command in ("player", "position", "go", "isready", "newgame", "quit", "show", "moves"):
        assert command in text
    assert not any(line.startswith("error") for line in text.splitlines())


def test_position_is_kept_between_gos():
    lines = talk("position startpos moves c3d3", "go", "go")
    first, second = (line for line in lines if line.startswith("bestmove"))
    after = Position.start().play("c3d3")
    after.parse_move(first.split()[1])
    after.parse_move(second.split()[1])  # go does not play its move


# ------------------------------------------------------------------ players
def test_player_command_changes_and_shows_the_player():
    lines = talk("player", "player random:seed=9", "player")
    assert lines == ["info player random:seed=3", "info player random:seed=9"]


def test_same_seed_same_move_and_newgame_rebuilds_the_player():
    a = talk("go", "go")
    b = talk("go", "newgame", "go")
    assert bestmove(a[:2]) == bestmove(b[:2])
    assert bestmove(b) == bestmove(a[:2])  # a fresh player with the same seed plays the same again


def test_newgame_goes_back_to_the_start():
    assert talk("position startpos layout mini", "newgame", "d")[-1] == STANDARD


def test_default_player():
    assert default_spec() in ("engine", "random")
    proto = EngineProtocol(None, io.StringIO(), io.StringIO())
    assert proto.spec == default_spec()


def test_movetime_is_passed_in_seconds(probe_kind):
    lines = talk("go movetime 1500", "go", "go movetime 0.5", player="probe")
    first = Position.start().legal_moves()[0].notation()
    assert [b for b in lines if b.startswith("bestmove")] == [f"bestmove {first}"] * 3
    (probe,) = probe_kind
    assert [t for _, t in probe.calls] == [1.5, None, pytest.approx(0.0005)]


def test_go_depth_rebuilds_the_player_with_that_depth(probe_kind):
    lines = talk("go depth 3 movetime 200", "go depth 3", "go depth 5", "go", player="probe:depth=2")
    assert sum(line.startswith("bestmove") for line in lines) == 4
    assert [p.depth for p in probe_kind] == [2, 3, 5]  # the depth-3 player is built once
    assert probe_kind[1].calls[0][1] == 0.2
    assert len(probe_kind[0].calls) == 1  # plain go uses the player as chosen


def test_spec_with_depth(probe_kind):
    assert spec_with_depth("probe", 4) == "probe:depth=4"
    assert spec_with_depth("probe:depth=2", 7) == "probe:depth=7"
    with pytest.raises(ValueError, match="player random has no depth option"):
        spec_with_depth("random:seed=1", 3)


def test_go_depth_on_a_player_without_depth():
    assert talk("go depth 4", "isready") == ["error player random has no depth option", "readyok"]


# ------------------------------------------------------------------ game over
def test_game_over_answers_bestmove_none():
    won = position_with(["a1", "a2"], ["i5"], lost=(0, 6))
    lines = talk(f"position {won.to_string()}", "go")
    assert lines == ["info game over: Black wins (push-off)", "bestmove none"]


def test_repetition_is_known_from_the_history():
    cycle = "c3d3 g7f7 d3c3 f7g7"
    lines = talk(f"position startpos moves {cycle} {cycle}", "go", "moves")
    assert lines[:2] == ["info game over: draw (repetition)", "bestmove none"]
    assert lines[2] == "moves"
    # the same position without the history is not over
    assert bestmove(talk(f"position {STANDARD}", "go")) != "none"


def test_show_reports_game_over():
    won = position_with(["a1", "a2"], ["i5"], lost=(0, 6))
    assert "game over: Black wins (push-off)" in talk(f"position {won.to_string()}", "d")


# ------------------------------------------------------------------ errors
ERRORS = [
    ("frobnicate", "unknown command 'frobnicate'"),
    ("go depth", "'depth' needs a value"),
    ("go depth x", "depth must be a whole number"),
    ("go depth 0", "depth must be from 1 to 64, not 0"),
    ("go depth 99", "depth must be from 1 to 64, not 99"),
    ("go depth " + "9" * 5000, "depth must be a whole number, not '99999999999999999..."),
    ("go depth \u00b2", "depth must be a whole number"),
    ("go movetime 1e12", "movetime must be from 0 to 8.64e+07"),
    ("go infinite depth 3", "go infinite takes no depth or movetime"),
    ("go depth 2.5", "depth must be a whole number"),
    ("go movetime -5", "movetime must be from 0"),
    ("go movetime abc", "movetime must be a number"),
    ("go movetime nan", "movetime must be from 0"),
    ("go sideways", "unexpected 'sideways' in go"),
    ("x" * 70000, "the line is longer than 65536 characters"),
    ("player engine:depth=99", "depth=99 is out of range"),
    ("player engine:hash=100000", "hash=100000 is out of range"),
    ("player engine:time=1e9", "time=1e9 is out of range"),
    ("isready now", "isready takes no arguments"),
    ("newgame please", "newgame takes no arguments"),
    ("moves a1b1", "moves takes no arguments"),
    ("d board", "show takes no arguments"),
    ("quit now", "quit takes no arguments"),
    ("position", "position needs 'startpos' or a position string"),
    ("position moves c3d3", "position needs 'startpos'"),
    ("position startpos layout", "'layout' needs a value"),
    ("position startpos layout nowhere", "nowhere"),
    ("position startpos win", "'win' needs a value"),
    ("position startpos win 0", "win must be from 1 to 99"),
    ("position startpos win many", "win must be a whole number"),
    ("position startpos sideways", "unexpected 'sideways' in position"),
    (f"position {STANDARD} layout mini", "layout NAME goes with startpos"),
    ("position wwwww/wwwwww b 0 0 1", "the board has 2 rows"),
    ("position wwwww b 0", "a position string has 5 fields"),
    ("position 9/9/9/9/9/9/9/9/9 b 0 0 1", "row i has 9 cells"),
    ("position startpos moves e4e5", "move 1 (e4e5): e4e5 is not legal: there is no marble on e4"),
    ("position startpos moves c3d3 c3d3", "move 2 (c3d3)"),
    ("position startpos moves zz", "move 1 (zz): 'zz' is not a move"),
    ("position startpos moves j1j2", "there is no cell j1"),
    ("player", None),  # not an error: shows the player
    ("player bogus", "unknown player 'bogus'"),
    ("player random:colour=1", "player 'random' has no option 'colour'"),
    ("player random:seed=x", "option seed='x'"),
    ("player human", "the human player cannot be driven"),
]


@pytest.mark.parametrize("command,message", ERRORS)
def test_each_error_is_one_line_and_the_engine_goes_on(command, message):
    lines = talk("position startpos moves c3d3", command, "isready", "d")
    if message is None:
        assert not any(line.startswith("error") for line in lines)
        return
    assert lines[0].startswith("error "), lines
    assert message in lines[0]
    assert lines[1] == "readyok"
    # a failed command changes nothing: the position is still the one before it
    assert lines[-1] == Position.start().play("c3d3").to_string()


def test_errors_keep_the_player():
    lines = talk("player bogus", "player human", "player")
    assert lines[-1] == "info player random:seed=3"


def test_all_errors_in_one_session():
    commands = [c for c, m in ERRORS if m is not None]
    lines = talk(*commands, "isready")
    assert len(lines) == len(commands) + 1
    assert all(line.startswith("error ") for line in lines[:-1])
    assert lines[-1] == "readyok"


def test_a_failing_player_is_reported(monkeypatch):
    class Broken:
        name = "broken"

        def choose(self, position, movetime=None, history=None):
            raise RuntimeError("out of\nideas")

    out = io.StringIO()
    proto = EngineProtocol("random", io.StringIO("go\nisready\n"), out)
    proto.player = Broken()
    proto.run()
    assert out.getvalue().splitlines() == ["error RuntimeError: out of ideas", "readyok"]


def test_an_illegal_move_from_the_player_is_refused():
    class Cheat:
        name = "cheat"

        def choose(self, position, movetime=None, history=None):
            return Move(Position.start().legal_moves()[0].code, 5)

    out = io.StringIO()
    proto = EngineProtocol("random", io.StringIO("position startpos moves a1b1\ngo\n"), out)
    proto.player = Cheat()
    proto.run()
    (line,) = out.getvalue().splitlines()
    assert line.startswith("error player random chose") and "not legal" in line


class FlushCounter(io.StringIO):
    def __init__(self):
        super().__init__()
        self.flushed = ""

    def flush(self):
        self.flushed = self.getvalue()


def test_every_reply_is_flushed():
    out = FlushCounter()
    proto = EngineProtocol("random:seed=1", io.StringIO(), out)
    for command in ("isready", "go", "frobnicate", "d", "moves", "help", "player", "go depth 2"):
        before = out.getvalue()
        proto.handle(command)
        assert out.getvalue() != before, command
        assert out.flushed == out.getvalue(), command


# ------------------------------------------------------------------ the command line
def test_cli_engine_in_process(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("isready\nplayer\nposition startpos\ngo\n"))
    assert main(["engine", "--player", "random:seed=5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["readyok", "info player random:seed=5"]
    Position.start().parse_move(bestmove(lines))


def test_cli_engine_bad_player_spec(capsys):
    assert main(["engine", "--player", "bogus"]) == 2
    assert "unknown player 'bogus'" in capsys.readouterr().err


def test_engine_subprocess():
    commands = "isready\nposition startpos moves c3d3\ngo movetime 50\nfoo\nd\nquit\nisready\n"
    proc = subprocess.run(
        [sys.executable, "-m", "sumito.cli", "engine", "--player", "random:seed=2"],
        input=commands,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "readyok"
    Position.start().play("c3d3").parse_move(bestmove(lines[:3]))
    assert lines[3] == "error unknown command 'foo' (try help)"
    assert lines[-1] == Position.start().play("c3d3").to_string()
    assert lines.count("readyok") == 1  # nothing after quit


def test_engine_reports_its_search_in_an_info_line():
    lines = talk("position startpos layout belgian-daisy", "go depth 3", player="engine:depth=5")
    info = [line for line in lines if line.startswith("info depth")]
    assert len(info) == 1
    words = info[0].split()
    assert words[:3] == ["info", "depth", "3"] and "pv" in words
    pv = words[words.index("pv") + 1 :]
    assert pv[0] == bestmove(lines)


# ------------------------------------------------------------------ hostile input and a search that runs on
UTF8_ENV = {**__import__("os").environ, "LC_ALL": "en_US.UTF-8", "LANG": "en_US.UTF-8"}  # an ordinary user locale


def engine_process(player="engine"):
    return subprocess.Popen(
        [sys.executable, "-m", "sumito.cli", "engine", "--player", player],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,  # unbuffered, so that select() sees every line the engine wrote
        env=UTF8_ENV,
    )


def read_until(proc, prefix, timeout=60.0):
    """The lines the engine writes up to and including the first that starts with ``prefix``."""
    import select
    import time

    lines, end = [], time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stdout], [], [], 0.1)
        if ready:
            line = proc.stdout.readline().decode()
            assert line, f"the engine ended before {prefix!r}: {lines}"
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines
    raise AssertionError(f"no {prefix!r} within {timeout} s: {lines}")


def test_bytes_that_are_not_utf8_get_an_error_and_the_engine_goes_on():
    proc = subprocess.run(
        [sys.executable, "-m", "sumito.cli", "engine", "--player", "random:seed=1"],
        input=b"\xff\xfe\x80 go\nposition startpos moves c3d3\xe9\ngo\x00\n\x80\nisready\n",
        capture_output=True,
        timeout=120,
        check=False,
        env=UTF8_ENV,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert [line.split()[0] for line in lines] == ["error", "error", "error", "error", "readyok"], lines
    assert proc.stderr == b""


def test_stop_isready_and_quit_are_answered_during_a_search():
    import time

    proc = engine_process("engine")

    def send(*lines, wait=0.0):
        proc.stdin.write("".join(line + "\n" for line in lines).encode())
        proc.stdin.flush()
        time.sleep(wait)
        return time.monotonic()

    try:
        send("position startpos", "go depth 1")  # compiled (or loaded from numba's cache) first
        read_until(proc, "bestmove", timeout=120)
        send("go infinite", wait=1.0)
        t0 = send("isready")
        assert read_until(proc, "readyok")[-1] == "readyok"
        send("d", "stop")  # d waits for the bestmove; stop does not
        lines = read_until(proc, "bestmove")
        assert time.monotonic() - t0 < 5
        Position.start().parse_move(lines[-1].split()[1])
        assert read_until(proc, "wwwww/")[-1] == STANDARD
        # quit during a deep search leaves at once
        send("go depth 64", wait=0.5)
        t0 = send("quit")
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - t0 < 5
    finally:
        proc.kill()
        proc.wait()


def test_end_of_input_waits_for_the_search():
    lines = talk("position startpos", "go depth 2", player="engine")
    Position.start().parse_move(bestmove(lines))


def test_go_infinite_with_a_player_that_does_not_search_answers_at_once():
    Position.start().parse_move(bestmove(talk("go infinite")))
