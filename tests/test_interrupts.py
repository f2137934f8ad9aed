"""Ctrl-C stops `sumito sprt` at any moment, with exit status 130, within a second: while the process pool
starts, while games are played, and right after the last game, while the pool shuts down (where a Ctrl-C
used to be swallowed: held off by the pool's start, or raised inside a generator that the garbage collector
closed, so that the command went on and exited 0).

Each case runs the command in a process of its own and sends it SIGINT when a line of its output appears.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from sumito.procs import sigint_held

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is a POSIX affair")

#: a Ctrl-C that lands after ``main`` has returned (the interpreter tearing down) kills Python by SIGINT
#: itself, which a shell reports as 130 too
INTERRUPTED = (130, -signal.SIGINT)


def interrupt_sprt(marker: str, delay: float, *extra: str) -> tuple[int, float, str]:
    """Run `sumito sprt random random` (two workers), send SIGINT ``delay`` seconds after a line holding
    ``marker`` appears; the exit status, the seconds from the signal to the exit, and the output."""
    argv = [sys.executable, "-m", "sumito", "sprt", "random", "random", "--workers", "2",
            "--max-plies", "40", *extra]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                            env={**os.environ, "SUMITO_THREADS": "1"})
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line)
            if marker in line:
                break
        else:
            pytest.fail(f"no line with {marker!r} in the output:\n{''.join(seen)}")
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        rest, _ = proc.communicate(timeout=20)
        return proc.returncode, time.monotonic() - sent, "".join(seen) + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    ("marker", "delay", "extra"),
    [
        pytest.param("sprt: random", 0.0, ("--max-games", "4000"), id="as-the-pool-starts"),
        pytest.param("sprt: random", 0.05, ("--max-games", "4000"), id="pool-just-started"),
        pytest.param("(10 pairs)", 0.0, ("--max-games", "4000"), id="mid-run"),
        # the 10th pair is the last one: the pool is shutting down when the line appears
        pytest.param("(10 pairs)", 0.0, ("--max-games", "20"), id="right-after-the-last-game"),
        pytest.param("(10 pairs)", 0.005, ("--max-games", "20"), id="a-moment-after-the-last-game"),
    ],
)
def test_ctrl_c_stops_sprt_at_once_with_status_130(marker, delay, extra):
    code, seconds, output = interrupt_sprt(marker, delay, *extra)
    assert code in INTERRUPTED, f"exit status {code} after Ctrl-C:\n{output[-2000:]}"
    assert seconds < 1.0, f"{seconds:.2f} s from Ctrl-C to exit:\n{output[-2000:]}"
    assert "Exception ignored" not in output and "Traceback" not in output, output[-2000:]


def test_a_ctrl_c_held_back_while_a_pool_starts_or_stops_is_raised_when_the_hold_ends():
    reached = False
    with pytest.raises(KeyboardInterrupt), sigint_held():
        os.kill(os.getpid(), signal.SIGINT)  # ignored-and-blocked: kept pending, not lost
        time.sleep(0.05)
        reached = True
    assert reached  # the hold was not cut short: the Ctrl-C came after it, not inside


@pytest.mark.parametrize("entry", ["run", "main"])
def test_a_ctrl_c_while_the_interpreter_shuts_down_ends_the_program_as_interrupted(entry):
    # the Ctrl-C lands in an exit handler, after the command has returned: `sumito` (cli.run) ends killed
    # by SIGINT; cli.main alone (as tests call it in their own process) shows Python's default, where the
    # KeyboardInterrupt is "ignored" and the process exits 0: the race `run` closes
    program = (
        "import atexit, os, signal, sys, time\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(2)))\n"
        "sys.argv = ['sumito', 'perft', '--depth', '1']\n"
        f"from sumito.cli import {entry}\n"
        f"sys.exit({entry}())\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "44"  # the command's work was done and printed before the Ctrl-C
    if entry == "run":
        assert done.returncode in INTERRUPTED, done.stderr
        assert "Exception ignored" not in done.stderr
    else:
        assert done.returncode == 0 and "Exception ignored" in done.stderr
