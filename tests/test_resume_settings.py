"""Resume refuses what it cannot continue: every resumable job records the settings its files depend on, and a
resume that changes one is a one-line error naming it with both values, the folder untouched (or, where a
change is allowed, a clean start of what it concerns); a run folder is the same run however its path is
written, so a resumed gate replays none of its finished games."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from sumito.arena.executor import InlineExecutor
from sumito.arena.match import play_game
from sumito.cli import main
from sumito.fileio import read_npz_with_header
from sumito.games.abalone import Position
from sumito.learn.nnue import generate
from sumito.learn.selftaught import LoopSettings, open_run, player, run
from sumito.models.nnue_fit import NNUEDataError

OPENINGS = [Position.start().to_string()]
#: the smallest self-taught run that trains (test_selftaught's)
TINY = LoopSettings(games=4, depth=1, window=2, hidden=4, hidden2=2, epochs=1, gate_games=4, chunk=2,
                    max_plies=40, elo0=0.0, elo1=50.0)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: a refused resume changes none."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def with_option(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with ``option`` set to ``value`` (replaced where it is given, else added)."""
    if option in argv:
        i = argv.index(option)
        return [*argv[:i + 1], value, *argv[i + 2:]]
    return [*argv, option, value]


def refused(capsys, argv: list[str], folder: Path, message: str) -> None:
    before = snapshot(folder)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("sumito: error:")]
    assert len(errors) == 1 and message in errors[0] and err.endswith(errors[0] + "\n"), err
    assert snapshot(folder) == before


# ------------------------------------------------------------------------------------------- nnue gen
GEN = ["nnue", "gen", "--games", "3", "--chunk", "2", "--player", "engine:depth=1", "--max-plies", "6",
       "--workers", "1"]


@pytest.fixture(scope="module")
def gen_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("gen") / "data"
    assert main([*GEN, "--out", str(folder)]) == 0
    assert sorted(p.name for p in folder.glob("chunk-*")) == ["chunk-00000.npz", "chunk-00001.npz"]
    return folder


@pytest.mark.parametrize("option, value, message", [
    ("--chunk", "1", "--chunk was 2 when this run started, not 1; use a new --out folder or the same --chunk"),
    ("--games", "4", "--games was 3 when this run started, not 4"),
    ("--player", "engine:depth=2", "--player was engine:depth=1 when this run started, not engine:depth=2"),
    ("--seed", "2", "--seed was 1 when this run started, not 2"),
    ("--max-plies", "7", "--max-plies was 6 when this run started, not 7"),
    ("--random-plies", "2", "--random-plies was 6 when this run started, not 2"),
])
def test_gen_refuses_a_resume_with_another_setting(gen_folder, capsys, option, value, message):
    argv = with_option(GEN, option, value)
    refused(capsys, [*argv, "--out", str(gen_folder)], gen_folder, message)
    assert main([*GEN, "--out", str(gen_folder)]) == 0  # the same command: nothing to play
    assert "0 chunks written" in capsys.readouterr().out


def test_gen_checks_each_kept_chunk_against_the_run(tmp_path):
    """A folder begun before config.json recorded the settings (or a chunk copied in): each chunk's header is
    checked before it is reused, never mixed in."""
    folder = tmp_path / "data"
    small = dict(player="engine:depth=1", max_plies=6, openings=OPENINGS)
    assert generate(folder, 3, chunk=2, **small) == 2
    (folder / "config.json").unlink()
    before = snapshot(folder)
    with pytest.raises(NNUEDataError, match=r"chunk-00000\.npz: --chunk was 2 when this run started, not 3"):
        generate(folder, 3, chunk=3, **small)
    with pytest.raises(NNUEDataError, match="--seed was 1 when this run started, not 5"):
        generate(folder, 3, chunk=2, seed=5, **small)
    # a chunk of another folder's run, copied in under a name this run would reuse
    generate(tmp_path / "other", 4, chunk=2, seed=9, **small)
    (folder / "chunk-00001.npz").write_bytes((tmp_path / "other" / "chunk-00001.npz").read_bytes())
    with pytest.raises(NNUEDataError, match=r"chunk-00001\.npz: --games was 4 when this run started, not 3"):
        generate(folder, 3, chunk=2, **small)
    (folder / "chunk-00001.npz").write_bytes(b"")  # a damaged chunk is no finished one either
    with pytest.raises(NNUEDataError, match=r"chunk-00001\.npz"):
        generate(folder, 3, chunk=2, **small)
    (folder / "chunk-00001.npz").write_bytes(before["chunk-00001.npz"])
    assert generate(folder, 3, chunk=2, **small) == 0  # its own chunks: kept, and now recorded
    assert json.loads((folder / "config.json").read_text())["chunk"] == 2


# ----------------------------------------------------------------------------------------- nnue selfplay
def test_selfplay_refuses_another_network_size_board_or_seed(tmp_path, capsys):
    out = tmp_path / "run"
    open_run(out, TINY)
    base = ["nnue", "selfplay", "--out", str(out), "--generations", "1"]
    for option, value, message in (("--hidden", "8", "--hidden was 4 when this run started, not 8"),
                                   ("--hidden2", "3", "--hidden2 was 2 when this run started, not 3"),
                                   ("--seed", "7", "--seed was 1 when this run started, not 7"),
                                   ("--side", "3", "--side was 5 when this run started, not 3")):
        refused(capsys, [*base, option, value], out, message)


def test_selfplay_starts_the_attempt_in_progress_again_with_a_changed_chunk(tmp_path):
    """Killed after attempt 1's self-play and resumed with another --chunk: the attempt's chunks are made
    again with it, not reused beside chunks of the new size (which trained on some games twice and missed
    others)."""
    folder = tmp_path / "run"
    open_run(folder, TINY)
    data = folder / "attempt-0001" / "data"
    generate(data, TINY.games, player=player(folder, 0, TINY.depth), seed=TINY.seed * 100_003 + 1, chunk=TINY.chunk,
             max_plies=TINY.max_plies, openings=OPENINGS)
    lines = []
    state = open_run(folder, replace(TINY, chunk=1), only={"chunk"}, log=lines.append)
    assert not data.exists() and "removed data of attempt-0001" in lines[0]
    assert state.settings.chunk == 1 and state.changes == [{"from_attempt": 1, "chunk": 1}]
    # the attempt's self-play, as run_attempt plays it, makes its 4 games in 4 chunks of 1
    generate(data, state.settings.games, player=player(folder, 0, TINY.depth), seed=TINY.seed * 100_003 + 1,
             chunk=state.settings.chunk, max_plies=TINY.max_plies, openings=OPENINGS)
    headers = [read_npz_with_header(p.read_bytes(), str(p), 2**26, (), "chunk")[0]
               for p in sorted(data.glob("chunk-*.npz"))]
    assert [(h["first"], h["games"], h["chunk"]) for h in headers] == [(i, 1, 1) for i in range(4)]


class CountingExecutor(InlineExecutor):
    """Counts the games it plays (and the chunks and other work it runs)."""

    def __init__(self) -> None:
        self.games = self.other = 0

    def run(self, fn, items):
        items = list(items)
        if fn is play_game:
            self.games += len(items)
        else:
            self.other += len(items)
        return super().run(fn, items)


def test_a_gate_resumed_through_another_spelling_of_its_folder_replays_no_game(tmp_path, monkeypatch):
    real = tmp_path / "runs" / "x"
    state = run(real, generations=5, settings=TINY, executor=InlineExecutor(), max_attempts=1, log=lambda _: None)
    journal = real / "attempt-0001" / "gate.jsonl"
    played = journal.read_bytes()
    assert len(played.splitlines()) >= 2
    # as a kill during the gate leaves it: the attempt not recorded, its games in the journal
    (real / "state.json").write_text(json.dumps({**json.loads((real / "state.json").read_text()),
                                                 "generation": 0, "attempts": []}))
    (real / "net-001.npz").unlink(missing_ok=True)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    for spelling in ("./runs/x/", "link", str(real.resolve()), "runs/../runs/x"):
        executor = CountingExecutor()
        again = run(spelling, generations=5, settings=None, executor=executor, max_attempts=1, log=lambda _: None)
        assert (executor.games, executor.other) == (0, 0), spelling  # no game, no chunk played again
        assert journal.read_bytes() == played
        assert again.attempts[0].gate == state.attempts[0].gate
        (real / "state.json").write_text(json.dumps({**json.loads((real / "state.json").read_text()),
                                                     "generation": 0, "attempts": []}))
        (real / "net-001.npz").unlink(missing_ok=True)


# ------------------------------------------------------------------------------------------------ train
def test_train_refuses_a_resume_that_changes_a_setting(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--set", "layout=mini", "--set", "max_plies=30", "--games", "2", "--out", str(out),
                 "--eval-every", "0", "--quiet"]) == 0
    resume = ["train", "--games", "3", "--out", str(out), "--resume", "--eval-every", "0", "--quiet"]
    refused(capsys, [*resume, "--seed", "3"], out, "--seed was 0 when this run started, not 3")
    refused(capsys, [*resume, "--set", "layout=standard"], out,
            "--set layout was mini when this run started, not standard")
    refused(capsys, [*resume, "--set", "alpha=0.5"], out, "--set alpha was")
    # its own settings given again are no change; --games may grow
    assert main([*resume, "--seed", "0", "--set", "layout=mini"]) == 0


# --------------------------------------------------------------------------------------------- bg train
def test_bg_train_refuses_a_resume_that_changes_a_setting(tmp_path, capsys):
    out = tmp_path / "bg"
    # Tesauro's inputs and a large step: a game of a few seconds (Wiering's fresh network plays long ones)
    assert main(["bg", "train", "--out", str(out), "-n", "1", "--test-every", "1", "--test-games", "0",
                 "--encoding", "tesauro198", "--alpha", "0.1"]) == 0
    resume = ["bg", "train", "--out", str(out), "--resume", "-n", "2"]
    refused(capsys, [*resume, "--alpha", "0.02"], out, "--alpha was 0.1 when this run started, not 0.02")
    refused(capsys, [*resume, "--lambda", "0.5"], out, "--lambda was 0.6 when this run started, not 0.5")
    refused(capsys, [*resume, "--hidden", "4,4,4"], out, "--hidden was 20,20,40 when this run started, not 4,4,4")
    refused(capsys, [*resume, "--encoding", "wiering"], out,
            "--encoding was tesauro198 when this run started, not wiering")
    refused(capsys, [*resume, "--test-every", "2"], out, "--test-every was 1 when this run started, not 2")
    assert main([*resume, "--alpha", "0.1"]) == 0  # the run's own value: no change


# ------------------------------------------------------------------------------------------------- sprt
def test_sprt_refuses_a_journal_of_another_test_and_goes_on_with_its_own(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    test = ["sprt", "random", "greedy", "--max-games", "4", "--max-plies", "40", "--workers", "1", "--seed", "1",
            "--journal", str(journal)]
    assert main(test) == 0
    kept = journal.read_bytes()
    assert len(kept.splitlines()) == 4

    other_b = [*test[:2], "random", *test[3:]]
    for argv, message in ((with_option(test, "--seed", "2"), "--seed (game 1's seed) was"),
                          (other_b, "B was greedy when this run started, not random"),
                          (with_option(test, "--max-plies", "50"), "--max-plies was 40 when this run started, not 50"),
                          (with_option(test, "--movetime", "0.5"), "--movetime was none when this run started, not 0.5"
                           )):
        refused(capsys, argv, tmp_path, message)
    # more games and other bounds change no game: the journal's four are kept, two more played
    assert main(with_option(with_option(test, "--max-games", "6"), "--elo1", "20")) == 0
    lines = journal.read_bytes().splitlines()
    assert len(lines) == 6 and journal.read_bytes().startswith(kept)

