"""``sumito engine``: every ``go`` is answered by one ``bestmove``, whatever comes after it (another ``go``,
``stop``, ``position``, ``quit``, the end of the input), the commands taken in the order they were read."""

import io
import subprocess
import sys
import time

import pytest

from sumito.games.abalone import Position
from sumito.protocol import EngineProtocol
from sumito.stopping import stop_requested

#: a ``go`` that a gate holds until it is stopped: about a day, as GUIs send for an analysis
LONG_GO = "go movetime 86400000"


class _Script(io.StringIO):
    """A script's lines; ``done`` once the protocol's reader has read them all."""

    done = False

    def readline(self, size=-1):
        line = super().readline(size)
        if not line:
            self.done = True
        return line


class Gate:
    """A player that answers a ``go`` only once the protocol's loop has taken every line of the script off the
    reader's queue (so that a ``quit`` or ``stop`` in it has been read while the search runs); a ``go`` with a
    time (:data:`LONG_GO`) only once it is stopped. It records the position and whether it was stopped."""

    name = "gate"

    def __init__(self):
        self.proto = None
        self.calls = []  # (position string, stopped)

    def choose(self, position, movetime=None, history=None, draw=None):
        proto = self.proto
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            read_all = proto.instream.done and proto._lines.empty()
            if stop_requested() or (movetime is None and read_all):
                break
            time.sleep(0.005)  # (polling the state above: the wait ends as soon as it holds)
        else:
            raise AssertionError("the gate was neither released nor stopped within 60 s")
        self.calls.append((position.to_string(), stop_requested()))
        return position.legal_moves()[0]


def drive(*lines, eof_grace=None):
    """The engine's output lines for the script ``lines`` (in one stream, as a pipe gives it) with a
    :class:`Gate` as its player, and the gate's calls."""
    out = io.StringIO()
    proto = EngineProtocol("random", _Script("".join(line + "\n" for line in lines)), out, eof_grace=eof_grace)
    gate = Gate()
    gate.proto, proto.player = proto, gate
    assert proto.run() == 0
    return out.getvalue().splitlines(), gate.calls


def bestmoves(lines):
    return [line for line in lines if line.startswith("bestmove ")]


def stopped(calls):
    return [was for _, was in calls]


def test_five_gos_then_quit_are_five_bestmoves_the_last_cut_short_by_quit():
    # each go waits for the one before; quit, read while the first searched, stops the fifth, which answers
    lines, calls = drive("go", "go", "go", "go", LONG_GO, "quit")
    assert len(bestmoves(lines)) == 5, lines
    assert stopped(calls) == [False, False, False, False, True]


def test_two_gos_are_two_bestmoves():
    lines, calls = drive("go", "go")
    assert len(bestmoves(lines)) == 2 and stopped(calls) == [False, False], lines


def test_stop_ends_the_running_search_and_the_next_go_runs():
    lines, calls = drive(LONG_GO, "stop", "go")
    assert len(bestmoves(lines)) == 2 and stopped(calls) == [True, False], lines


def test_a_stop_after_a_waiting_go_stops_that_go_in_its_turn():
    # as Stockfish reads them: the stop comes after the second go, so it stops the second search, not the first
    lines, calls = drive("go", LONG_GO, "stop")
    assert len(bestmoves(lines)) == 2 and stopped(calls) == [False, True], lines


def test_go_infinite_then_stop():
    lines, calls = drive("go infinite", "stop")
    assert len(bestmoves(lines)) == 1 and len(calls) == 1, lines


def test_a_go_behind_a_go_infinite_is_answered_after_the_stop_read_later():
    # the go cannot start before go infinite ends, and go infinite ends only at a stop: the stop read after
    # them ends it now (and is spent); the second go then runs, and the one after it is stopped in its turn
    lines, calls = drive("go infinite", "go", LONG_GO, "stop", "stop")
    assert len(bestmoves(lines)) == 3, lines
    assert stopped(calls) == [True, False, True]


def test_quit_behind_a_go_behind_a_go_infinite_answers_both():
    lines, calls = drive("go infinite", LONG_GO, "quit", "go")
    assert len(bestmoves(lines)) == 2, lines  # the go after quit is never read
    assert stopped(calls) == [True, True]


def test_a_position_during_a_search_is_for_the_next_go():
    lines, calls = drive("go", "position startpos moves c3d3", "go", "d")
    assert len(bestmoves(lines)) == 2, lines
    assert calls[0][0] == Position.start().to_string()
    assert calls[1][0] == Position.start().play("c3d3").to_string() == lines[-1]


def test_isready_in_its_turn_during_a_search():
    lines, calls = drive("go", "isready", "go")
    assert [line.split()[0] for line in lines if not line.startswith("info")] == ["readyok", "bestmove", "bestmove"]
    assert len(calls) == 2


def test_the_end_of_the_input_stops_each_search_left_and_each_answers():
    lines, calls = drive(LONG_GO, LONG_GO, eof_grace=0.05)
    assert len(bestmoves(lines)) == 2 and stopped(calls) == [True, True], lines


def test_quit_right_after_a_go_stops_it_and_it_answers():
    lines, calls = drive(LONG_GO, "quit", "go")
    assert len(bestmoves(lines)) == 1 and stopped(calls) == [True], lines


@pytest.mark.slow  # (a process that loads the engine's compiled search)
def test_a_piped_script_of_five_gos_and_quit_gets_five_bestmoves():
    # the script, through a pipe, with the real engine
    script = "position startpos\n" + "go depth 3\n" * 5 + "quit\n"
    proc = subprocess.run([sys.executable, "-m", "sumito", "engine", "--player", "engine:threads=1"], input=script,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    answers = bestmoves(proc.stdout.splitlines())
    assert len(answers) == 5, proc.stdout
    for answer in answers:
        Position.start().parse_move(answer.split()[1])
