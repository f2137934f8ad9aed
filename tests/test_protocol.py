"""``sumito engine``: the UCI-like text protocol, driven in-process through string streams."""

import io
import subprocess
import sys

import pytest

from sumito.cli import main
from sumito.games.abalone import LAYOUTS, Move, Position
from sumito.players import player_names
from sumito.players.base import _REGISTRY, Option, PlayerKind
from sumito.protocol import ERROR_PREFIX, EngineProtocol, default_spec, run_engine, spec_with_depth

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

    def choose(self, position, movetime=None, history=None, draw=None):
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


def test_isready_answers_readyok_after_a_player_that_cannot_play_the_board_says_so():
    # perfect has no table for the standard board: its warm-up fails, which isready reports, and a GUI
    # waiting for readyok still gets it
    replies = talk("isready", player="perfect")
    assert len(replies) == 2 and replies[1] == "readyok"
    assert replies[0].startswith("info string error perfect: there is no solved table")


def test_end_of_input_quits():
    assert talk() == []
    assert talk("isready") == ["readyok"]


def test_blank_lines_are_ignored():
    assert talk("", "   ", "isready") == ["readyok"]


def test_go_from_the_start_gives_a_legal_move():
    lines = talk("go")
    assert lines[0].startswith("info time ") and lines[0].split()[2].isdigit()  # milliseconds, as in UCI
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
    assert default_spec() == "engine:nnue=builtin-nnue"  # the strongest engine (docs/strength.md)
    proto = EngineProtocol(None, io.StringIO(), io.StringIO())
    assert proto.spec == default_spec()


def test_movetime_is_passed_in_seconds(probe_kind):
    lines = talk("go movetime 1500", "go", "go movetime 0.5", player="probe")
    first = Position.start().legal_moves()[0].notation()
    assert [b for b in lines if b.startswith("bestmove")] == [f"bestmove {first}"] * 3
    (probe,) = probe_kind
    assert [t for _, t in probe.calls] == [1.5, None, pytest.approx(0.001)]  # at least a millisecond


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
    assert talk("go depth 4", "isready") == ["info string error player random has no depth option", "readyok"]


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
    ("go infinite depth 3", "go infinite takes no depth, nodes, movetime or clock"),
    ("go infinite wtime 1000", "go infinite takes no depth, nodes, movetime or clock"),
    ("go wtime", "'wtime' needs a value"),
    ("go wtime -1", "wtime must be from 0"),
    ("go btime abc", "btime must be a number"),
    ("go winc 1e12", "winc must be from 0 to 8.64e+07"),
    ("go movestogo 0", "movestogo must be from 1"),
    ("go movestogo 2.5", "movestogo must be a whole number"),
    ("setoption", "setoption needs: setoption name"),
    ("setoption value 3", "setoption needs: setoption name"),
    ("setoption name Colour value 3", "unknown option 'Colour'"),
    ("setoption name MultiPV", "setoption name MultiPV needs one value"),
    ("setoption name MultiPV value 0", "MultiPV must be from 1 to 256, not 0"),
    ("setoption name MultiPV value 2 3", "needs one value"),
    ("setoption name Hash value 5000", "Hash must be from 1 to 4096"),
    ("setoption name Hash value 1.5", "Hash must be a whole number"),
    ("setoption name Contempt value nan", "Contempt must be a number, not 'nan'"),
    ("setoption name Contempt value inf", "Contempt must be a number, not 'inf'"),
    ("setoption name Contempt value 1_0", "Contempt must be a number, not '1_0'"),
    ("setoption name Hash value 1_0", "Hash must be a whole number, not '1_0'"),
    ("setoption name MaxPlies value 1_0", "MaxPlies must be a whole number, not '1_0'"),
    ("setoption name EvalFile value expert-nnue", "player random has no EvalFile option"),
    ("setoption name MultiPV value 2", "player random has no MultiPV option"),
    ("uci please", "uci takes no arguments"),
    ("go depth 2.5", "depth must be a whole number"),
    ("go movetime -5", "movetime must be from 0"),
    ("go movetime abc", "movetime must be a number"),
    ("go movetime nan", "movetime must be a number, not 'nan'"),
    ("go movetime 1_0", "movetime must be a number, not '1_0'"),
    ("go movetime 1e400", "movetime must be a number, not '1e400'"),
    ("go depth 1_0", "depth must be a whole number, not '1_0'"),
    ("go sideways", "unexpected 'sideways' in go"),
    ("x" * 70000, "the line is longer than 65536 characters"),
    ("player engine:depth=99", "depth=99 is out of range"),
    ("player engine:hash=100000", "hash=100000 is out of range"),
    ("player engine:time=1e9", "time=1e9 is out of range"),
    ("player engine:time=1_0", "time='1_0' in 'engine:time=1_0' must be float"),
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
        assert not any(line.startswith("info string error") for line in lines)
        return
    assert lines[0].startswith("info string error "), lines
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
    assert all(line.startswith("info string error ") for line in lines[:-1])
    assert lines[-1] == "readyok"


def test_a_failing_player_is_reported(monkeypatch):
    class Broken:
        name = "broken"

        def choose(self, position, movetime=None, history=None, draw=None):
            raise RuntimeError("out of\nideas")

    out = io.StringIO()
    proto = EngineProtocol("random", io.StringIO("go\nisready\n"), out)
    proto.player = Broken()
    proto.run()
    # the go is still answered (a GUI waits for its bestmove)
    assert out.getvalue().splitlines() == ["info string error RuntimeError: out of ideas", "bestmove none", "readyok"]


def test_an_illegal_move_from_the_player_is_refused():
    class Cheat:
        name = "cheat"

        def choose(self, position, movetime=None, history=None, draw=None):
            return Move(Position.start().legal_moves()[0].code, 5)

    out = io.StringIO()
    proto = EngineProtocol("random", io.StringIO("position startpos moves a1b1\ngo\n"), out)
    proto.player = Cheat()
    proto.run()
    line, answer = out.getvalue().splitlines()
    assert line.startswith("info string error player random chose") and "not legal" in line
    assert answer == "bestmove none"


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
        [sys.executable, "-m", "sumito", "engine", "--player", "random:seed=2"],
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
    assert lines[3] == "info string error unknown command 'foo' (try help)"
    assert lines[-1] == Position.start().play("c3d3").to_string()
    assert lines.count("readyok") == 1  # nothing after quit


def info_depths(lines):
    return [int(line.split()[2]) for line in lines if line.startswith("info depth")]


def test_engine_streams_one_info_line_per_iteration():
    lines = talk("position startpos layout belgian-daisy", "go depth 4", player="engine:depth=5")
    info = [line for line in lines if line.startswith("info depth")]
    assert info_depths(lines) == [1, 2, 3, 4]  # one a finished iteration, deepening by one
    for line in info:
        words = line.split()
        assert words[3] == "score" and words[4] in ("cp", "mate") and int(words[5]) is not None
        for key in ("nodes", "nps", "time"):
            assert words[words.index(key) + 1].isdigit(), line
    nodes = [int(line.split()[line.split().index("nodes") + 1]) for line in info]
    assert nodes == sorted(nodes)  # the effort so far, growing
    pv = info[-1].split()
    pv = pv[pv.index("pv") + 1 :]
    assert pv[0] == bestmove(lines) and len(pv) >= 1
    assert lines[-2].startswith("info time ") and lines.index(info[-1]) < len(lines) - 2


def test_info_lines_are_streamed_while_the_search_runs():
    """Each line is written when its iteration ends, from the search thread, not all at the end."""
    import threading
    import time

    class Stamped(io.StringIO):
        def __init__(self):
            super().__init__()
            self.stamps = []

        def write(self, text):
            self.stamps.append((time.perf_counter(), threading.current_thread().name, text))
            return super().write(text)

    out = Stamped()
    run_engine("engine", io.StringIO("position startpos\ngo movetime 1500\n"), out)
    infos = [(t, name) for t, name, text in out.stamps if text.startswith("info depth")]
    end = next(t for t, _, text in out.stamps if text.startswith("bestmove"))
    assert len(infos) >= 3
    assert all(name == "sumito-search" for _, name in infos)
    assert infos[0][0] < end - 0.05  # the first came well before the bestmove


def test_multipv_gives_k_lines_an_iteration_best_first():
    lines = talk("setoption name MultiPV value 3", "position startpos layout belgian-daisy", "go depth 4",
                 player="engine")
    info = [line.split() for line in lines if line.startswith("info depth")]
    assert len(info) == 4 * 3
    for depth in range(1, 5):
        group = [w for w in info if w[2] == str(depth)]
        assert [w[4] for w in group] == ["1", "2", "3"]  # info depth D multipv K
        cps = [int(w[7]) for w in group if w[6] == "cp"]
        assert cps == sorted(cps, reverse=True)
        assert len({w[w.index("pv") + 1] for w in group}) == 3  # three different moves
    assert info[-3][info[-3].index("pv") + 1] == bestmove(lines)


def test_setoption_changes_the_spec_and_uci_lists_the_options():
    lines = talk("setoption name multipv value 2", "setoption name HASH value 8", "setoption name Contempt value -5.5",
                 "player", "uci", player="engine:depth=3")
    assert lines[0] == "info player engine:depth=3,multipv=2,hash=8,contempt=-0.055"  # cp: hundredths of a marble
    assert lines[1].startswith("id name Sumito") and lines[-1] == "uciok"
    assert "option name MultiPV type spin default 2 min 1 max 256" in lines
    assert "option name Hash type spin default 8 min 1 max 4096" in lines
    assert any(line.startswith("option name Contempt type spin") for line in lines)


def test_uci_for_a_player_without_options_and_ucinewgame():
    # no player options; the game's draw rules are options of every player
    assert talk("uci", "position startpos layout mini", "ucinewgame", "d")[:5] == [
        "id name Sumito " + __import__("sumito").__version__ + " (random:seed=3)", "id author the Sumito authors",
        "option name MaxPlies type spin default 0 min 0 max 100000",
        "option name NoCapture type spin default 0 min 0 max 100000", "uciok"]
    assert talk("ucinewgame", "d")[-1] == STANDARD


def test_clock_gives_the_side_to_move_its_share(probe_kind):
    from sumito.search.timeman import move_time

    lines = talk(
        "go wtime 1000 btime 60000 winc 10 binc 2000",  # Black to move: its own clock counts
        "position startpos moves c3d3",
        "go wtime 30000 btime 1 winc 500 binc 0 movestogo 10",  # White to move
        "go wtime 30000 movetime 100",  # the smaller of movetime and the clock's share
        "go btime 5000",  # White to move and no White clock: no limit from the clock
        player="probe",
    )
    assert sum(line.startswith("bestmove") for line in lines) == 4
    (probe,) = probe_kind
    times = [t for _, t in probe.calls]
    assert times[0] == pytest.approx(move_time(60.0, 2.0))
    assert times[1] == pytest.approx(move_time(30.0, 0.5, 10))
    assert times[2] == pytest.approx(0.1)
    assert times[3] is None


def test_clock_sets_the_engines_own_time_aside():
    from sumito.search.timeman import move_time

    proto = EngineProtocol("engine:time=0.01", io.StringIO(), io.StringIO())
    player, seconds = proto._plan_go(["wtime", "20000", "btime", "20000"])
    assert player.time is None and player.depth == 64 and seconds == pytest.approx(move_time(20.0))
    player, seconds = proto._plan_go(["depth", "3", "btime", "100"])
    assert player.time is None and player.depth == 3
    assert proto._plan_go([])[0] is proto.player and proto.player.time == 0.01


def test_go_nodes_searches_a_node_budget_instead_of_the_engines_time():
    proto = EngineProtocol("engine:time=5", io.StringIO(), io.StringIO())
    player, seconds = proto._plan_go(["nodes", "20000"])
    assert player.nodes == 20000 and player.time is None and seconds is None
    lines = talk("go nodes 20000", player="engine:threads=1")
    info = [line for line in lines if line.startswith("info depth")]
    assert info and int(info[-1].split(" nodes ")[1].split()[0]) <= 20000
    assert any(line.startswith("bestmove") for line in lines)
    with pytest.raises(Exception, match="nodes"):
        proto._plan_go(["nodes", "0"])
    with pytest.raises(Exception, match="has no nodes option"):
        EngineProtocol("random", io.StringIO(), io.StringIO())._plan_go(["nodes", "10"])


def test_go_with_a_clock_plays_within_it():
    import time

    t0 = time.perf_counter()
    lines = talk("position startpos moves c3d3", "go wtime 2000 btime 2000 winc 0 binc 0", player="engine")
    assert time.perf_counter() - t0 < 2.0
    Position.start().play("c3d3").parse_move(bestmove(lines))
    assert info_depths(lines)


# ------------------------------------------------------------------ hostile input and a search that runs on
UTF8_ENV = {**__import__("os").environ, "LC_ALL": "en_US.UTF-8", "LANG": "en_US.UTF-8"}  # an ordinary user locale


def engine_process(player="engine"):
    return subprocess.Popen(
        [sys.executable, "-m", "sumito", "engine", "--player", player],
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
        [sys.executable, "-m", "sumito", "engine", "--player", "random:seed=1"],
        input=b"\xff\xfe\x80 go\nposition startpos moves c3d3\xe9\ngo\x00\n\x80\nisready\n",
        capture_output=True,
        timeout=120,
        check=False,
        env=UTF8_ENV,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert [line.split()[:3] for line in lines] == [["info", "string", "error"]] * 4 + [["readyok"]], lines
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


def test_position_takes_a_playstrategy_fen():
    fen = "SS1ss/SSSsss/1SS1ss1/8/9/8/1ss1SS1/sssSSS/ss1SS 0 0 b 0 1"  # the Belgian Daisy, PlayStrategy's form
    lines = talk(f"position {fen} moves a1b2", "d")
    assert lines[-1] == Position.start("belgian-daisy").play("a1b2").to_string()


def _fresh_engine_session(*commands, player=None):
    """The output of a fresh ``sumito engine`` process (``player``; ``None``: the default one) given ``commands``,
    each sent once the engine has answered the one before (a ``go`` by its ``bestmove``, ``isready`` by
    ``readyok``), as a GUI does."""
    argv = [sys.executable, "-m", "sumito", "engine"] + ([] if player is None else ["--player", player])
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = []
    try:
        for command in commands:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
            awaited = "bestmove" if command.startswith("go") else "readyok" if command == "isready" else None
            while awaited is not None:
                line = proc.stdout.readline()
                assert line, f"the engine ended before answering {command!r}: {lines}"
                lines.append(line.strip())
                if line.startswith(awaited):
                    break
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=120) == 0
    finally:
        proc.kill()
    return lines


@pytest.mark.parametrize(("player", "commands", "depth"), [
    (None, ("go movetime 100",), 1),
    (None, ("isready", "go movetime 100"), 1),
    (None, ("isready", "go wtime 2000 btime 2000 winc 0 binc 0"), 1),
    (None, ("go wtime 5000 btime 5000 winc 0 binc 0",), 1),
    # a first go under the spec's own time: the 0.1 s are the search's (a warm engine is at depth 3 in a
    # few ms), and no longer spent loading and compiling, which stopped it at depth 1
    ("engine:time=0.1", ("go depth 3",), 3),
])
def test_a_fresh_engines_first_move_is_searched(player, commands, depth):
    # loading the compiled search (and a first install's compile) happens off the move's clock, and the clock
    # never stops the first iteration: the first go reports at least one finished iteration (and as deep as
    # its limits allow, where they are easy to reach)
    lines = _fresh_engine_session(*commands, player=player)
    assert info_depths(lines) and max(info_depths(lines)) >= depth, lines
    assert lines[-1].startswith("bestmove ")


def test_a_fresh_processs_first_timed_search_gets_its_whole_time():
    # the first timed search of a process (an arena worker's first move) loads the compiled search before its
    # clock starts: searching to the end of its time (no prediction), it reports the whole 0.2 s as searched
    # (a load inside the clock is taken off the time reported, and the search then stops short of 0.2 s); it
    # reaches the depth that equally fresh players reach on the same position after it (within a ply); and
    # the clock never stops a first iteration, however short it is
    script = (
        "from sumito.games.abalone import Position\n"
        "from sumito.players import make_player\n"
        "position = Position.start()\n"
        "fresh = lambda: make_player('engine:time=0.2,threads=1')\n"
        "first = fresh().analyse(position, seconds=0.2, predict=False)\n"
        "later = [fresh().analyse(position, seconds=0.2, predict=False).depth for _ in range(2)]\n"
        "print(first.seconds, first.depth, *later, fresh().analyse(position, seconds=1e-6).depth)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    seconds, first, *later, tiny = proc.stdout.split()
    assert float(seconds) >= 0.2
    assert int(first) >= min(map(int, later)) - 1, (first, later)
    assert int(tiny) >= 1


# ------------------------------------------------------------------ threads, stop, the network in use, numbers
def _cores():
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class _Session:
    """A fresh ``sumito engine`` process (the default player), fed a line at a time, its replies timed."""

    def __init__(self, player=None):
        argv = [sys.executable, "-m", "sumito", "engine"] + ([] if player is None else ["--player", player])
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     bufsize=0, env=UTF8_ENV)

    def send(self, *lines):
        import time

        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, prefix, timeout=120.0):
        return read_until(self.proc, prefix, timeout)

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            self.proc.kill()
            self.proc.wait()


def _stop_latencies(session, tries=3):
    """Seconds from writing ``stop`` to reading ``bestmove``, for ``tries`` ``go infinite`` of half a second."""
    import time

    latencies = []
    session.send("position startpos")
    for _ in range(tries):
        session.send("go infinite")
        time.sleep(0.5)
        sent = session.send("stop")
        lines = session.until("bestmove", timeout=60)
        latencies.append(time.monotonic() - sent)
        Position.start().parse_move(lines[-1].split()[1])
        session.send("isready")
        session.until("readyok")
    return latencies


def test_threads_beyond_the_cores_are_clamped_with_an_info_string():
    cores = _cores()
    if cores >= 64:
        pytest.skip("a machine with 64 cores or more takes 64 threads")
    session = _Session()
    try:
        session.send("setoption name Threads value 64", "player", "isready")
        lines = session.until("readyok")
        plural = "s" if cores > 1 else ""
        assert lines[0] == f"info string Threads 64 is more than the {cores} core{plural} here; using {cores}"
        assert lines[1].startswith("info player ") and f"threads={cores}" in lines[1]
        session.send("uci")
        assert f"option name Threads type spin default {cores} min 1 max 64" in session.until("uciok")
    finally:
        session.close()


def test_stop_answers_within_a_second_at_64_threads_and_4096_mb():
    # a GUI's most demanding settings on any machine: the threads beyond the cores are clamped, the table is
    # made at setoption (never at go), and every search thread hears the stop at its next node
    session = _Session()
    try:
        session.send("setoption name Threads value 64", "setoption name Hash value 4096", "isready")
        session.until("readyok", timeout=180)
        latencies = _stop_latencies(session)
        assert max(latencies) < 1.0, latencies
    finally:
        session.close()


def test_a_specs_threads_beyond_the_cores_are_capped_as_setoptions_are():
    cores = _cores()
    if cores >= 64:
        pytest.skip("a machine with 64 cores or more takes 64 threads")
    session = _Session("engine:threads=64")
    try:
        session.send("player engine:threads=64,time=1", "player", "isready")
        lines = session.until("readyok", timeout=180)
        plural = "s" if cores > 1 else ""
        said = f"info string threads=64 is more than the {cores} core{plural} here; using {cores}"
        assert lines.count(said) == 2, lines  # (the --player spec, and the player command's)
        assert f"info player engine:time=1,threads={cores}" in lines, lines
        latencies = _stop_latencies(session)
        assert max(latencies) < 1.0, latencies
    finally:
        session.close()


def test_a_damaged_network_is_an_info_string_error_and_the_previous_network_stays(tmp_path):
    damaged = tmp_path / "damaged.nnue"
    damaged.write_bytes(b"PK\x03\x04 not a network" * 10)
    missing = tmp_path / "missing.nnue"
    session = _Session()
    try:
        session.send("setoption name Threads value 1", "setoption name EvalFile value expert-nnue",
                     f"setoption name EvalFile value {damaged}", f"setoption name EvalFile value {missing}",
                     f"player engine:nnue={damaged}", "player", "isready")
        lines = session.until("readyok")
        errors = [line for line in lines if line.startswith("info string error ")]
        assert len(errors) == 3 and all("nnue" in line for line in errors), lines
        assert str(damaged) in errors[0] and str(missing) in errors[1] and str(damaged) in errors[2]
        assert "info player engine:threads=1,nnue=expert-nnue" in lines  # the last setting that worked
        assert not any(line.startswith("error") for line in lines)  # (a bare error line: GUIs do not show it)
        session.send("go depth 1")
        lines = session.until("bestmove")
        assert lines[0] == "info string evaluation nnue expert-nnue, threads 1"
        session.send("uci")
        assert "option name EvalFile type string default expert-nnue" in session.until("uciok")
    finally:
        session.close()


def test_the_first_go_names_the_network_and_threads_and_a_change_names_them_again():
    session = _Session()
    try:
        session.send("setoption name Threads value 1", "go depth 1")
        first = session.until("bestmove")
        assert first[0] == "info string evaluation nnue builtin-nnue, threads 1", first
        session.send("go depth 2")
        again = session.until("bestmove")
        assert not any(line.startswith("info string") for line in again), again  # nothing changed
        session.send("setoption name EvalFile value none", "go depth 1")
        changed = session.until("bestmove")
        assert changed[0] == "info string evaluation linear, threads 1", changed
    finally:
        session.close()


def test_1_0_and_other_float_spellings_are_no_number_anywhere():
    # one syntax for numbers (sumito.bounds.read_number): setoption, go, player specs and the command line's
    # seconds all refuse what Python's float() would take besides it
    session = _Session("random:seed=1")
    try:
        session.send("setoption name MaxPlies value 1_0", "go movetime 1_0", "player engine:time=1_0",
                     "setoption name NoCapture value \u0661", "isready")
        lines = session.until("readyok")
        assert lines[:4] == ["info string error MaxPlies must be a whole number, not '1_0'",
                             "info string error movetime must be a number, not '1_0'",
                             "info string error option time='1_0' in 'engine:time=1_0' must be float",
                             "info string error NoCapture must be a whole number, not '\u0661'"], lines
    finally:
        session.close()
    for argv in (["analyse", "--time", "1_0"], ["analyse", "--time", "nan"], ["analyse", "--time", " 1 "],
                 ["match", "random", "random", "--tc", "1_0+1"], ["game", "--black", "engine:time=1_0"]):
        done = subprocess.run([sys.executable, "-m", "sumito", *argv], capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 2, (argv, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and ("1_0" in done.stderr or "nan" in done.stderr
                                                                or "' 1 '" in done.stderr), (argv, done.stderr)


@pytest.mark.parametrize("text,whole,expected", [
    ("10", True, 10), ("-3", True, -3), ("2.5", False, 2.5), (".5", False, 0.5), ("1e3", False, 1000.0),
    ("1_0", True, None), ("1_0", False, None), ("nan", False, None), ("inf", False, None), ("-Infinity", False, None),
    (" 1 ", False, None), ("1e400", False, None), ("2.5", True, None), ("1e3", True, None), ("\u0661", True, None),
    ("", False, None), ("0x10", True, None),
])
def test_read_number_is_the_one_syntax(text, whole, expected):
    from sumito.bounds import read_number

    assert read_number(text, whole) == expected


class _SlowLoad(Probe):
    """A probe whose warm-up (the protocol's load) takes ``seconds``."""

    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds
        self.loads = 0

    def warm_up(self, position):
        import time

        self.loads += 1
        time.sleep(self.seconds)


def _slow_kind(monkeypatch, seconds):
    player_names()
    kind = PlayerKind("slowload", lambda: _SlowLoad(seconds), {}, "test player")
    monkeypatch.setitem(_REGISTRY, "slowload", kind)


def test_a_long_load_is_announced_and_isready_and_go_wait_for_it(monkeypatch):
    # the load (kernels, a table) runs when the player or position is set; one of more than a second says so,
    # and isready and go come after it, so that no move's clock pays for it
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "1")
    _slow_kind(monkeypatch, 1.3)
    lines = talk("position startpos layout mini", "isready", "go", player="slowload")
    assert lines[0].startswith("info string preparing slowload on the side-5 board: loading its search"), lines
    assert lines[1].startswith("info string slowload ready after "), lines
    assert lines[2].startswith("info string preparing slowload on the side-3 board"), lines
    assert lines[3].startswith("info string slowload ready after "), lines
    assert lines[4] == "readyok" and lines[-1].startswith("bestmove "), lines


def test_a_load_is_quiet_when_compile_notices_are_off(monkeypatch):
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "0")
    _slow_kind(monkeypatch, 1.2)
    assert talk("isready", player="slowload") == ["readyok"]


def test_quit_during_a_load_leaves_at_once_and_uci_is_answered_during_it(monkeypatch):
    import time

    _slow_kind(monkeypatch, 30)
    started = time.monotonic()
    lines = talk("uci", "quit", player="slowload")
    assert time.monotonic() - started < 5  # (the load would take 30 s)
    assert lines[-1] == "uciok", lines


def test_a_scripts_commands_after_a_load_are_answered_before_its_quit(monkeypatch):
    # quit waits for the commands sent before it (a script's isready and go), which wait for the load
    _slow_kind(monkeypatch, 0.3)
    lines = talk("position startpos layout mini", "isready", "go", "quit", player="slowload")
    assert "readyok" in lines and lines[-1].startswith("bestmove "), lines


#: every evaluation the engine searches with: the network (default), the hand-set and the papers' evaluations,
#: a value network and a policy-value network (on the boards it does not know, the hand-set evaluation)
ENGINE_EVALUATIONS = ["engine", "engine:eval=linear", "engine:eval=heuristic", "engine:eval=abla",
                      "engine:net=builtin", "engine:zero=builtin"]


@pytest.mark.slow
@pytest.mark.parametrize("spec", ENGINE_EVALUATIONS)
def test_the_first_move_on_each_board_after_isready_keeps_to_its_movetime(spec):
    # what a first move needs (the compiled search for the board and evaluation, the table) loads when the
    # position is set, and isready waits for it: the first go movetime 500 on each board answers within 1.5x
    import time

    session = _Session(spec)
    try:
        for layout in ("mini", "small", "standard"):
            session.send(f"position startpos layout {layout}", "isready")
            session.until("readyok", timeout=300)
            sent = session.send("go movetime 500")
            lines = session.until("bestmove", timeout=60)
            answered = time.monotonic() - sent
            assert answered < 0.75, (layout, answered, lines)
            assert not any(line.startswith(ERROR_PREFIX) for line in lines), lines
    finally:
        session.close()


def test_quit_after_a_position_during_a_load_leaves_at_once(monkeypatch):
    # a quit behind only state changes (no go, no isready) does not wait for their loads
    import time

    _slow_kind(monkeypatch, 30)
    started = time.monotonic()
    assert talk("position startpos layout mini", "setoption name MaxPlies value 100", "quit", player="slowload") == []
    assert time.monotonic() - started < 5
