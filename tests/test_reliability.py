"""Hostile-input reproducers outside the web server and the process pools: hostile input to the
command line and its files, and Ctrl-C in the middle of a long computation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numba
import pytest

from sumito.cli import main
from sumito.games.abalone import Position, RecordError, parse_records, read_records
from sumito.learn.training import TrainingConfig, TrainingError
from sumito.models.network import NetworkError, ValueNetwork
from sumito.stopping import call_stoppable

STANDARD = Position.start().to_string()


def sumito(*argv, stdin=subprocess.DEVNULL, timeout=120):
    return subprocess.run([sys.executable, "-m", "sumito.cli", *argv], stdin=stdin, capture_output=True,
                          text=True, timeout=timeout, check=False)


# ------------------------------------------------------------------ files and records
def test_a_huge_tag_line_is_refused_before_it_is_parsed():
    with pytest.raises(RecordError, match="line 1: 1,000,010 characters; a line may have at most 65,536"):
        parse_records('[Event "' + "x" * 1_000_000 + '"]\n\n*\n')


def test_a_record_file_over_the_limit_is_not_read(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b" " * (5 * 2**20))
    with pytest.raises(RecordError, match="more than 4,194,304 bytes"):
        read_records(big)


@pytest.mark.parametrize("value", ["9" * 5000, "1" * 10])
def test_huge_numbers_in_tags_are_one_line_errors(value):
    with pytest.raises(RecordError, match=r"line 2: MaxPlies must be a positive whole number, not '1111|9999"):
        parse_records(f'[Event "a"]\n[MaxPlies "{value}"]\n\n*\n')


def test_a_plies_tag_of_5000_digits():
    with pytest.raises(RecordError, match=r"the Plies tag says '99999999999999999\.\.\.'"):
        parse_records('[Event "a"]\n[Plies "' + "9" * 5000 + '"]\n\n*\n')


@pytest.mark.parametrize("path", ["/dev/zero", "/"])
def test_special_files_are_never_read(path):
    with pytest.raises(RecordError, match="not a regular file"):
        read_records(path)
    with pytest.raises(NetworkError, match="not a regular file"):
        ValueNetwork.load(path)


def test_a_zip_bomb_network_is_refused(tmp_path):
    import zipfile

    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("W1.npy", b"\0" * (300 * 2**20))
    with pytest.raises(NetworkError, match="its arrays would take 314,572,800 bytes"):
        ValueNetwork.load(bomb)


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


# ------------------------------------------------------------------ Ctrl-C
def interrupt_after(seconds, *argv):
    """Start ``sumito argv``, send it SIGINT after ``seconds``: (exit code, stderr, seconds it took to stop)."""
    proc = subprocess.Popen([sys.executable, "-m", "sumito.cli", *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    assert proc.poll() is None, proc.communicate()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, err, time.monotonic() - t0


@pytest.mark.parametrize(
    "argv",
    [
        ["perft", "--depth", "20"],
        ["game", "--black", "abla:depth=12", "--white", "random", "--quiet"],
        ["game", "--black", "engine:time=60", "--white", "random", "--quiet"],
        ["game", "--black", "alphalone:depth=6,adaptive=no", "--white", "random", "--quiet"],
    ],
    ids=["perft", "abla", "engine", "alphalone"],
)
def test_ctrl_c_stops_a_long_computation_at_once(argv):
    code, err, took = interrupt_after(6, *argv)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "sumito: interrupted", err
    assert "Traceback" not in err and "SystemError" not in err
    assert took < 3, took


def test_ctrl_c_keeps_the_unfinished_game(tmp_path):
    out = tmp_path / "game.txt"
    code, err, _ = interrupt_after(6, "game", "--black", "random", "--white", "abla:depth=12", "--out", str(out))
    assert code == 130, err
    (record,) = read_records(out)
    assert record.result == "*" and record.game.plies == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_the_kernels_still_run_in_worker_threads_and_processes():
    """Off the main thread (protocol searches, pool workers) a kernel is called directly."""
    result = []
    thread = threading.Thread(target=lambda: result.append(Position.start().perft(3)))
    thread.start()
    thread.join()
    assert result == [98_912]


def test_a_stoppable_kernel_uses_the_callers_numba_thread_count():
    """The helper thread that runs a kernel takes the caller's ``numba.set_num_threads`` (numba keeps
    the count per thread): a benchmark's one-thread row is run on one thread."""
    assert threading.current_thread() is threading.main_thread()
    before = numba.get_num_threads()
    try:
        for n in {1, numba.config.NUMBA_NUM_THREADS}:
            numba.set_num_threads(n)
            assert call_stoppable(numba.get_num_threads) == n  # as the helper thread sees it
    finally:
        numba.set_num_threads(before)


def test_a_byte_that_is_not_utf8_is_a_bad_move_not_a_crash():
    proc = subprocess.run([sys.executable, "-m", "sumito.cli", "play", "--opponent", "random"],
                          input=b"a1\xffb1\nquit\n", capture_output=True, timeout=120, check=False,
                          env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "'a1\ufffdb1' is not a move" in out and "Traceback" not in proc.stderr.decode()
