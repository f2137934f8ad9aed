"""Bad input to the command line and the engine protocol, one test each: the end of the protocol's input during
``go infinite``, a 5,000-digit number in a training config, huge game counts and a lazy SPRT schedule, special
files named by player options, every numeric option's bounds, file names holding a newline, bounded training
options and config files that are devices, a human player without a person, and bytes that are not text."""

import argparse
import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from sumito.cli import build_parser, main
from sumito.errors import SumitoError
from sumito.games.abalone import Position
from sumito.learn.training import TrainingConfig, TrainingError
from sumito.players import make_player, player_names
from sumito.players.backgammon.players import KINDS as BG_KINDS
from sumito.players.backgammon.players import make_bg_player
from sumito.players.base import parse_spec
from sumito.protocol import run_engine

HUGE = "4" * 5000


def run(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sumito argv``, in-process."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_short_line(code, err, longest_quote=60):
    """A usage error: status 2, one line on stderr, no piece of a long value longer than ``longest_quote``."""
    assert code == 2, err
    assert err.startswith("sumito: error: ") and err.count("\n") == 1, err
    assert len(err) < 600, err
    runs = re.findall(r"4{10,}", err)
    assert max(map(len, runs), default=0) <= longest_quote, err


@contextlib.contextmanager
def deadline(seconds):
    """Fail the test (rather than hang it) when its body runs past ``seconds``: a blocking open of a FIFO or a
    ten-million-game schedule is interrupted by the alarm."""

    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def memory_cap(extra=2 * 2**30):
    """At most ``extra`` more bytes of address space for the body: a reader that slipped through would read
    ``/dev/zero`` for ever, and must fail with a MemoryError here, not take the machine's memory."""
    import resource

    with open("/proc/self/status") as fh:
        size = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ------------------------------------------------------------------ 1. the end of the protocol's input
def test_end_of_input_ends_an_infinite_search_and_the_engine_exits():
    import select

    proc = subprocess.Popen(
        [sys.executable, "-m", "sumito", "engine", "--player", "engine"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
    )
    try:
        proc.stdin.write(b"position startpos\ngo depth 1\n")  # compiled (or loaded from numba's cache) first
        proc.stdin.flush()
        seen, end = b"", time.monotonic() + 120
        while b"bestmove" not in seen and time.monotonic() < end:
            if select.select([proc.stdout], [], [], 0.1)[0]:
                seen += proc.stdout.readline()
        assert b"bestmove" in seen, seen
        proc.stdin.write(b"go infinite\n")
        proc.stdin.flush()
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.stdin.close()  # the GUI went away
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - t0 < 5
        rest = proc.stdout.read().decode()
        assert rest.rstrip().splitlines()[-1].startswith("bestmove "), rest  # the search's answer still comes
    finally:
        proc.kill()
        proc.wait()


def test_end_of_input_stops_the_search_after_the_grace_in_process():
    out = io.StringIO()
    with deadline(120):  # before the fix: a search that never ended, and a protocol that waited for it
        assert run_engine("engine", io.StringIO("position startpos\ngo infinite\n"), out, eof_grace=0.3) == 0
    Position.start().parse_move(out.getvalue().splitlines()[-1].split()[1])


# ------------------------------------------------------------------ 2. a 5,000-digit number in a training config
def test_a_config_number_of_5000_digits_is_one_line_naming_the_key(capsys, tmp_path):
    config = tmp_path / "b.toml"
    config.write_text(f"layout = \"mini\"\nhidden = {HUGE}\n")
    code, _, err = run(capsys, "train", "--config", config, "--games", 1, "--out", tmp_path / "r")
    assert_one_short_line(code, err)
    assert "'hidden'" in err
    # in a list (no key to name) and through --set: one line too, and bounded before TrainingConfig sees it
    config.write_text(f"hidden = [{HUGE}]\n")
    code, _, err = run(capsys, "train", "--config", config, "--games", 1, "--out", tmp_path / "r")
    assert_one_short_line(code, err)
    code, _, err = run(capsys, "train", "--set", "hidden=1e300", "--games", 1, "--out", tmp_path / "r")
    assert_one_short_line(code, err)
    assert "hidden" in err and len(err) < 200, err


# ------------------------------------------------------------------ 3. huge game counts, a lazy schedule
def _limited(*argv, memory=4 * 2**30):
    """``sumito argv`` in a process that may use at most ``memory`` bytes: a count that slipped through would
    allocate a list of every game (gigabytes), and must fail there, not take the machine's memory."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-m", "sumito", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, preexec_fn=limit, check=False)


@pytest.mark.parametrize("command", [("match", "random", "random", "--no-db"), ("tournament", "random", "greedy",
                                     "--no-db"), ("bg", "match", "random", "random", "--json")])
def test_a_400_digit_game_count_is_a_usage_error(command):
    proc = _limited(*command, "-n", "3" * 400)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and len(proc.stderr) < 300, proc.stderr
    assert "Traceback" not in proc.stderr and "must be from 1 to 10000000" in proc.stderr


def test_a_tournament_of_too_many_games_in_all_is_refused(capsys, monkeypatch):
    import sumito.arena.match as match

    monkeypatch.setattr(match, "MAX_GAMES", 1_000)  # 10 games for each of 190 pairs: 1,900 games in all
    players = [f"random:seed={k}" for k in range(20)]
    code, _, err = run(capsys, "tournament", *players, "-n", 10, "--no-db")
    assert code == 2 and "more than 1,000 games" in err and err.count("\n") == 1, err


class _Won:
    """A game result in which A scored a win: all the SPRT reads of it."""

    def score_of(self, player):
        return 1.0


class _BatchRecorder:
    workers = 1

    def __init__(self):
        self.batches = []

    def run(self, fn, items):
        items = list(items)
        self.batches.append(len(items))
        for i in range(len(items)):
            yield i, _Won()


def test_sprt_with_ten_million_games_schedules_them_lazily(capsys, monkeypatch):
    import sumito.cli.sprt as sprt_command

    recorder = _BatchRecorder()
    monkeypatch.setattr(sprt_command, "executor_from_args", lambda args, workers: recorder)
    with deadline(30):  # the schedule of every game, made up front, took two minutes and 1 GB
        code, out, err = run(capsys, "sprt", "random", "random", "--max-games", 10_000_000)
    assert code == 0, err
    assert "H1 accepted" in out
    assert recorder.batches and max(recorder.batches) <= 2_000, recorder.batches
    assert "at most 10000000 games" in err


def test_a_match_is_played_in_batches_with_the_games_in_order():
    from sumito.arena.match import ArenaSettings, Schedule, play_scheduled, schedule

    settings = ArenaSettings.from_layout("mini", seed=5, opening_plies=2)
    tasks = Schedule(["random", "greedy", "random:seed=2"], 7, settings)
    assert list(tasks) == schedule(["random", "greedy", "random:seed=2"], 7, settings)
    assert len(Schedule(["random", "random"], 10_000_000, settings)) == 10_000_000  # instant: nothing is made
    seen = []

    def run(batch):
        seen.append(len(batch))
        for i, task in enumerate(batch):
            yield i, task.index

    assert [(i, r) for i, r in play_scheduled(run, tasks, batch=4)] == [(i, i) for i in range(len(tasks))]
    assert seen == [4, 4, 4, 4, 4, 1]


# ------------------------------------------------------------------ 4. special files named by player options
@pytest.fixture
def special_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    return ["/dev/zero", str(fifo), str(folder)]


def _file_options():
    """(game, kind, option) for every player option that names a file, in both games."""
    for name in player_names():
        kind, _ = parse_spec(name)
        for key, option in kind.options.items():
            if option.path:
                yield "abalone", name, key
    for name, kind in BG_KINDS.items():
        for key, option in kind.options.items():
            if option.path:
                yield "backgammon", name, key


def test_every_file_option_of_every_player_refuses_special_files_at_once(special_files):
    options = list(_file_options())
    assert ("abalone", "alphalone", "weights") in options and ("backgammon", "td", "net") in options
    for game, name, key in options:
        for path in special_files:
            spec = f"{name}:{key}={path}"
            t0 = time.monotonic()
            # a FIFO blocked for ever, /dev/zero was read until memory ran out
            with deadline(10), memory_cap(), pytest.raises(SumitoError) as caught:
                make_player(spec) if game == "abalone" else make_bg_player(spec)
            message = str(caught.value)
            assert "\n" not in message and "regular file" in message, (spec, message)
            assert time.monotonic() - t0 < 2, spec


def test_the_protocols_player_command_refuses_a_fifo(special_files):
    out = io.StringIO()
    fifo = special_files[1]
    with deadline(20):
        assert run_engine("random", io.StringIO(f"player alphalone:weights={fifo}\nplayer\nisready\n"), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("info string error ") and "not a regular file" in lines[0], lines
    assert lines[1:] == ["info player random", "readyok"]


# ------------------------------------------------------------------ 5. every numeric option is bounded
def _typed_options(parser=None, path=()):
    """(the subcommand's words with its positional arguments, the option's action) for every option of every
    subcommand that converts its value (a ``type=``), at every depth (``sumito bg train``, ``sumito nnue gen``...)."""
    parser = parser or build_parser()
    words = [*path]
    for action in parser._actions:  # a value for each required positional, so that only the option is wrong
        if not action.option_strings and not isinstance(action, argparse._SubParsersAction) and action.nargs != "?":
            words.append("random")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _typed_options(sub, (*path, name))
        elif action.type is not None and action.option_strings:
            yield words, action


def _refused(capsys, argv):
    """The usage error ``sumito argv`` gives: its parser refuses it first (so that nothing runs if it did not),
    then ``main`` (exit status 2, one line on stderr)."""
    with pytest.raises(SumitoError):
        build_parser().parse_args([str(a) for a in argv])
    return run(capsys, *argv)


def test_every_numeric_option_of_every_command_is_bounded(capsys):
    options = list(_typed_options())
    assert len(options) > 80
    plain = [(" ".join(words), a.option_strings[-1]) for words, a in options if a.type in (int, float)]
    assert not plain, f"plain int/float options (use sumito.cliargs' bounded types): {plain}"
    for words, action in options:
        code, _, err = _refused(capsys, [*words, action.option_strings[-1], HUGE])
        assert_one_short_line(code, err)
        assert action.option_strings[-1] in err, err


def test_movetime_and_time_options_refuse_inf_and_a_billion_seconds(capsys):
    timed = [(words, a) for words, a in _typed_options() if a.dest in ("movetime", "time", "tc", "max_time")]
    assert {words[0] for words, _ in timed} >= {"match", "tournament", "sprt", "play", "analyse", "serve"}
    for words, action in timed:
        for value in ("inf", "1e9", "nan", "-1"):
            code, _, err = _refused(capsys, [*words, action.option_strings[-1], value])
            assert code == 2 and err.count("\n") == 1 and action.option_strings[-1] in err, (words, value, err)


def test_argparse_echoes_are_cut_short(capsys):
    assert_one_short_line(*run(capsys, "train", "--preset", HUGE, "--games", 1, "--out", "r")[::2])
    assert_one_short_line(*run(capsys, "perft", "--depth", 1, HUGE)[::2])
    assert_one_short_line(*run(capsys, HUGE)[::2])


# ------------------------------------------------------------------ 6. a newline in a file name
def test_a_newline_in_a_file_name_is_a_one_line_error(capsys, tmp_path):
    odd = tmp_path / "two\nlines"
    odd.mkdir()  # a folder with a newline in its name: not a file to read, a journal or a record
    cases = [
        ("game", "--out", str(tmp_path / "no\nsuch" / "g.txt")),
        ("train", "--config", str(odd), "--games", 1, "--out", str(tmp_path / "r")),
        ("train", "--config", str(tmp_path / "no\nsuch.toml"), "--games", 1, "--out", str(tmp_path / "r")),
        ("sprt", "random", "random", "--openings", str(odd)),
        ("sprt", "random", "random", "--journal", str(odd)),
        ("replay", str(tmp_path / "no\nsuch.txt")),
        ("match", "random", "random", "--no-db", "--not-an-option", str(odd)),  # argparse's own echo
    ]
    for argv in cases:
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert "\\n" in err, (argv, err)  # the name is quoted escaped, as repr writes it


def sumito(*argv, stdin=subprocess.DEVNULL, timeout=120):
    return subprocess.run([sys.executable, "-m", "sumito", *argv], stdin=stdin, capture_output=True,
                          text=True, timeout=timeout, check=False)


# ------------------------------------------------------------------ training options
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(opponent="human"), "opponent cannot be 'human'"),
        (dict(hidden=100_000_000), "hidden must be at most 4096"),
        (dict(search_depth=99), "search_depth must be at most 9"),
        (dict(opponent="engine:depth=99"), "opponent: option depth=99 is out of range"),
        (dict(opponent="nosuch"), "opponent: unknown player 'nosuch'"),
    ],
)
def test_training_options_are_bounded(options, message):
    with pytest.raises(TrainingError, match=message):
        TrainingConfig(**options)


def test_targets_from_dev_zero(capsys, tmp_path):
    assert main(["train", "--set", "targets=/dev/zero", "--games", "1", "--out", str(tmp_path / "r")]) == 2
    assert "/dev/zero: not a network file (not a regular file)" in capsys.readouterr().err


def test_a_config_file_that_is_a_device_or_not_text(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"hidden = \xff\n")
    for config, message in (("/dev/zero", "not a regular file"), (str(bad), "not a text file (not UTF-8)")):
        assert main(["train", "--config", config, "--games", "1", "--out", str(tmp_path / "r")]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


# ------------------------------------------------------------------ a human player without a person
def test_game_with_a_human_and_no_input_ends_as_a_resignation():
    proc = sumito("game", "--black", "human", "--white", "random", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Black left the game (end of input)" in proc.stderr
    assert '[Result "0-1"]' in proc.stdout and '[Reason "resignation"]' in proc.stdout


# ------------------------------------------------------------------ bytes that are not text
def test_a_byte_that_is_not_utf8_is_a_bad_move_not_a_crash():
    proc = subprocess.run([sys.executable, "-m", "sumito", "play", "--opponent", "random"],
                          input=b"a1\xffb1\nquit\n", capture_output=True, timeout=120, check=False,
                          env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "'a1\ufffdb1' is not a move" in out and "Traceback" not in proc.stderr.decode()
