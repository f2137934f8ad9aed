"""Every file reader against hostile files: bounded in depth as in size.

JSON nested 100,000 deep used to overflow the parser's recursion (a ``RecursionError`` traceback) in the
NNUE and value-network headers, Alphalone's weights, NNUE data chunks, a run's ``state.json``, the SPRT and
gate journals and the other JSON a file or an archive holds; a network with a finite but huge weight (a bias
of 10³⁰) made the engine report a forced win hundreds of digits long. Each reader here is fed deep nesting,
huge weights, wrong shapes and types and cut files, and must answer with its one-line error (or, for a
journal, skip the line), never another exception. Bounded example counts keep the file a few seconds.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sumito
import sumito.bounds as bounds
import sumito.fileio as fileio
import sumito.learn.run as training_run
import sumito.solve.solver as solver
from sumito.arena.db import GameArchive
from sumito.arena.errors import ArchiveError
from sumito.arena.executor import InlineExecutor
from sumito.arena.journal import GameJournal
from sumito.arena.match import DEFAULT_RULES, ArenaSettings, GameTask
from sumito.cli import main
from sumito.errors import SumitoError
from sumito.evaluation.alphalone import AlphaloneWeights, WeightsError, default_weights
from sumito.evaluation.features import ALPHALONE_FEATURES
from sumito.evaluation.nnue import ARRAY_NAMES as NNUE_ARRAYS
from sumito.evaluation.nnue import NNUE, NNUEError, load_network, n_features
from sumito.games.abalone import LAYOUTS, Position, RecordError, parse_records, read_records
from sumito.learn.abalone_game import make_trainer
from sumito.learn.config import read_config
from sumito.learn.nnue import load_samples
from sumito.learn.run import RunFolder, load_checkpoint, save_checkpoint
from sumito.learn.selftaught import SelfTaughtError, open_run
from sumito.learn.training import TrainingConfig, TrainingError
from sumito.models.backgammon.modular import ModularTrainer, ModularValue
from sumito.models.network import NetworkError, ValueNetwork
from sumito.models.nnue_fit import NNUEDataError
from sumito.players import make_player
from sumito.players.base import PlayerSpecError
from sumito.search.context import WIN_BOUND
from sumito.solve.solver import DamagedCheckpoint, read_checkpoint, resumable_state, write_checkpoint
from sumito.solve.table import SolvedTable

HOSTILE = settings(max_examples=12, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
FEW = settings(HOSTILE, max_examples=6)
MINI = LAYOUTS["mini"].position_string

# what opens a level, and what closes it; strings holding brackets, which must not count
LEVELS = [("[", "]"), ('{"a":', "}"), ('["x]", ', "]"), ('{"k[{": ', "}"), ('["\\"[", ', "]")]


@st.composite
def deep_json(draw) -> str:
    """JSON nested deeper than any file of ours (65 to 100,000 levels), arrays and objects in a drawn pattern,
    brackets inside strings, sometimes cut short (no closing brackets)."""
    depth = draw(st.one_of(st.integers(bounds.MAX_JSON_DEPTH + 1, 200), st.sampled_from([3_000, 100_000])))
    pattern = draw(st.lists(st.sampled_from(LEVELS), min_size=1, max_size=3))
    levels = (pattern * (depth // len(pattern) + 1))[:depth]
    opened = "".join(o for o, _ in levels) + "0"
    return opened if draw(st.booleans()) and depth > 1000 else opened + "".join(c for _, c in reversed(levels))


def one_line(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and len(message) < 600, message
    assert "Traceback" not in message and "set_int_max_str_digits" not in message, message
    return message


def npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def arrays_of(path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def small_nnue() -> NNUE:
    rng = np.random.default_rng(0)
    nf = n_features(3)
    return NNUE(rng.normal(0, 0.3, (nf, 4)), rng.normal(0.4, 0.2, 4), rng.normal(0, 0.5, (2, 8)),
                rng.normal(0, 0.2, 2), rng.normal(0, 0.5, 2), 0.05, 1.0, psqt=rng.normal(0, 0.1, nf), side=3,
                base=np.array([1000.0, 6.0, 2.0, 4.0, 2.0, 0.0, 0.0]))


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A good file of each kind, to be made hostile."""
    folder = tmp_path_factory.mktemp("good")
    small_nnue().save(folder / "nnue.npz")
    ValueNetwork(3, 2, 0).save(folder / "net.npz")
    model = ModularValue(0, hidden=(2, 2, 2))
    model.save(folder / "bg.npz")
    ModularTrainer(model, 1).save_checkpoint(folder / "bg-checkpoint.npz")
    config = TrainingConfig(layout="mini", hidden=3, max_plies=20)
    RunFolder(folder / "run").create(config, resume=False)
    save_checkpoint(folder / "run" / "checkpoint.npz", make_trainer(config))
    return folder


# ------------------------------------------------------------------ the helper itself
@HOSTILE
@given(text=deep_json())
def test_load_json_refuses_deep_nesting_in_one_line(text):
    with pytest.raises(SumitoError) as caught:
        fileio.load_json(text, "x.json", "the header")
    assert "x.json" in one_line(caught.value)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                           | st.text(alphabet='[]{}"\\ax', max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                         max_size=3), max_leaves=30)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@settings(max_examples=200, deadline=None)
@given(value=json_values, limit=st.integers(0, 8))
def test_the_depth_scan_measures_what_the_parser_would(value, limit):
    text = json.dumps(value)
    assert fileio.json_too_deep(text, limit) == (_depth(value) > limit)
    if _depth(value) <= limit:
        assert fileio.load_json(text, "x", "it", max_depth=limit) == value


def test_load_json_says_what_is_wrong_in_one_line():
    cases = {"1" * 5000: "number too long", "[1,": "not JSON", b"\xff\xfe": "not UTF-8", "[" * 100: "levels deep"}
    for text, words in cases.items():
        with pytest.raises(SumitoError, match=words) as caught:
            fileio.load_json(text, "f.json", "the file")
        assert one_line(caught.value).startswith("f.json: the file")


# ------------------------------------------------------------------ deep nesting, reader by reader
def _with_meta(path, meta: str, key: str = "meta") -> bytes:
    return npz(**{**arrays_of(path), key: np.array(meta)})


def _nnue(good, tmp, text):
    (tmp / "n.npz").write_bytes(_with_meta(good / "nnue.npz", text))
    load_network(tmp / "n.npz")


def _network(good, tmp, text):
    (tmp / "n.npz").write_bytes(_with_meta(good / "net.npz", text))
    ValueNetwork.load(tmp / "n.npz")


def _bg_network(good, tmp, text):
    (tmp / "n.npz").write_bytes(_with_meta(good / "bg.npz", text))
    ModularValue.load(tmp / "n.npz")


def _bg_checkpoint(good, tmp, text):
    (tmp / "c.npz").write_bytes(_with_meta(good / "bg-checkpoint.npz", text, "trainer"))
    ModularTrainer.load_checkpoint(tmp / "c.npz")


def _bg_checkpoint_model(good, tmp, text):
    (tmp / "c.npz").write_bytes(_with_meta(good / "bg-checkpoint.npz", text, "model_meta"))
    ModularTrainer.load_checkpoint(tmp / "c.npz")


def _alphalone(good, tmp, text):
    (tmp / "w.json").write_text(text)
    AlphaloneWeights.load(tmp / "w.json")


def _chunk(good, tmp, text):
    _write_chunk(tmp, text)
    load_samples([tmp / "data"])


def _write_chunk(tmp, text):
    n = 2
    arrays = {"boards": np.zeros((n, 19), np.int8), "side": np.ones(n, np.int8), "lost": np.zeros((n, 2), np.int8),
              "score": np.zeros(n, np.float32), "result": np.full(n, 0.5, np.float32), "quiet": np.ones(n, bool),
              "game": np.zeros(n, np.int32)}
    (tmp / "data").mkdir(exist_ok=True)
    (tmp / "data" / "chunk-00000.npz").write_bytes(npz(meta=np.array(text), **arrays))


def _state(good, tmp, text):
    (tmp / "run").mkdir(exist_ok=True)
    (tmp / "run" / "state.json").write_text(text)
    open_run(tmp / "run", None)


def _checkpoint(good, tmp, text):
    (tmp / "c.npz").write_bytes(_with_meta(good / "run" / "checkpoint.npz", text))
    load_checkpoint(tmp / "c.npz")


def _config(good, tmp, text):
    (tmp / "run").mkdir(exist_ok=True)
    (tmp / "run" / "config.json").write_text(text)
    RunFolder(tmp / "run").saved_config()


def _table(good, tmp, text):
    (tmp / "t.npz").write_bytes(npz(meta=np.array(text), values=np.zeros(3, np.int8)))
    SolvedTable.load(tmp / "t.npz")


def _archive(good, tmp, text):
    with GameArchive(_write_archive(tmp, text)) as archive:
        archive.runs()


def _write_archive(tmp, text):
    db = tmp / "games.sqlite"
    db.unlink(missing_ok=True)
    with GameArchive(db) as archive:
        archive.start_run("match", ["a", "b"], 1, 1, ArenaSettings.from_layout("mini"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET settings = ?", (text,))
    conn.close()
    return db


#: (reader, the one-line error it gives)
READERS = {
    "NNUE header": (_nnue, NNUEError),
    "network header (net=, td:net=)": (_network, NetworkError),
    "backgammon network header": (_bg_network, NetworkError),
    "backgammon checkpoint's trainer": (_bg_checkpoint, NetworkError),
    "backgammon checkpoint's model": (_bg_checkpoint_model, NetworkError),
    "alphalone weights": (_alphalone, WeightsError),
    "NNUE data chunk": (_chunk, NNUEDataError),
    "self-taught state.json": (_state, SelfTaughtError),
    "training checkpoint": (_checkpoint, TrainingError),
    "run config.json": (_config, TrainingError),
    "solved table": (_table, ValueError),
    "archive run settings": (_archive, ArchiveError),
}


@pytest.mark.parametrize("reader", list(READERS))
@FEW
@given(text=deep_json())
def test_every_reader_refuses_deep_nesting_in_one_line(good, tmp_path, reader, text):
    read, error = READERS[reader]
    with pytest.raises(error) as caught:
        read(good, tmp_path, text)
    one_line(caught.value)


@FEW
@given(text=deep_json())
def test_a_journal_skips_a_deep_line_and_keeps_the_others(tmp_path, text):
    path = tmp_path / "games.jsonl"
    path.unlink(missing_ok=True)
    task = GameTask("random", "random", MINI, 2, False, DEFAULT_RULES, None, 1, 0)
    assert len(list(GameJournal(path).play(InlineExecutor(), [task]))) == 1
    good_line = path.read_text()
    path.write_text(text + "\n" + good_line + text + "\n")
    journal = GameJournal(path)  # a gate's journal and `sumito sprt --journal` read it so
    assert len(journal) == 1 and journal.skipped == 2  # `sumito sprt` says how many it skipped


@FEW
@given(depth=st.sampled_from([3_000, 10_000, 30_000]))
def test_a_training_config_nested_deep_is_one_line(tmp_path, depth):
    path = tmp_path / "c.toml"
    path.write_text("hidden = " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(TrainingError) as caught:
        read_config(str(path))
    one_line(caught.value)


def test_a_solve_checkpoint_nested_deep_is_a_fresh_start(tmp_path):
    path = tmp_path / "solve.npz"
    write_checkpoint(path, {"size": 3}, 1, np.zeros(3, np.int16), np.zeros(3, np.uint8))
    assert read_checkpoint(path, {"size": 3}) is not None
    path.write_bytes(npz(meta=np.array("[" * 100_000 + "]" * 100_000), values=np.zeros(3, np.int16),
                         counters=np.zeros(3, np.uint8)))
    with pytest.raises(DamagedCheckpoint, match="nests more than"):
        read_checkpoint(path, {"size": 3})
    path.write_bytes(npz(meta=np.array("[1]"), values=np.zeros(3, np.int16), counters=np.zeros(3, np.uint8)))
    with pytest.raises(DamagedCheckpoint, match="not a JSON object"):  # not an AttributeError
        read_checkpoint(path, {"size": 3})
    told: list[str] = []
    assert resumable_state(path, {"size": 3}, told.append) is None  # a fresh start, the file set aside
    assert not path.exists() and (tmp_path / "solve.npz.damaged").exists() and len(told) == 1


def _bomb(path: Path, declared: int) -> None:
    """An .npz whose zip directory says one array inflates to ``declared`` bytes (highly compressible:
    zeros), written without ever holding them: a zip bomb's shape."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i1", "fortran_order": False, "shape": (declared,)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("values.npy", "w",
                                                                                     force_zip64=True) as out:
        out.write(header.getvalue())
        chunk = bytes(1 << 20)
        for _ in range(declared >> 20):
            out.write(chunk)


def test_checkpoints_that_would_inflate_past_their_bound_are_refused_before_inflating(tmp_path, monkeypatch):
    """A training checkpoint or a solve checkpoint whose arrays would inflate past what such a file can hold
    is refused (training: one line; a solve: a fresh start) from the sizes its zip directory declares,
    never inflated: np.load is not reached."""
    bomb = tmp_path / "checkpoint.npz"
    _bomb(bomb, 64 << 20)
    assert bomb.stat().st_size < (1 << 20)

    class Reached(BaseException):  # not an Exception: no loader's handler may turn it into a refusal
        pass

    class Inflating:
        @staticmethod
        def load(*args, **kwargs):
            raise Reached("np.load reached")

    monkeypatch.setattr(training_run, "MAX_CHECKPOINT_BYTES", 32 << 20)
    monkeypatch.setattr(training_run, "np", Inflating)
    with pytest.raises(TrainingError) as caught:
        load_checkpoint(bomb)
    one_line(caught.value)
    assert "would take" in str(caught.value)
    monkeypatch.setattr(solver, "np", Inflating)
    monkeypatch.setattr(fileio, "np", Inflating)
    with pytest.raises(DamagedCheckpoint, match="would take"):
        read_checkpoint(bomb, {"size": 1000})


# ------------------------------------------------------------------ huge weights, loader by loader
huge = st.one_of(st.floats(min_value=1.01e6, max_value=1e300), st.floats(max_value=-1.01e6, min_value=-1e300),
                 st.sampled_from([1e30, -1e30, np.nan, np.inf]))


@HOSTILE
@given(name=st.sampled_from(NNUE_ARRAYS), value=huge)
def test_an_nnue_with_a_huge_weight_is_refused_naming_the_array(good, tmp_path, name, value):
    arrays = arrays_of(good / "nnue.npz")
    arrays[name] = arrays[name].astype(np.float64)
    arrays[name].reshape(-1)[0] = value
    (tmp_path / "n.npz").write_bytes(npz(**arrays))
    with pytest.raises(NNUEError) as caught:
        load_network(tmp_path / "n.npz")
    message = one_line(caught.value)
    assert "n.npz" in message and f" {name} " in message


@HOSTILE
@given(name=st.sampled_from(["W1", "b1", "W2", "b2"]), value=huge)
def test_a_value_network_with_a_huge_weight_is_refused_naming_the_array(good, tmp_path, name, value):
    arrays = arrays_of(good / "net.npz")
    arrays[name].reshape(-1)[-1] = value
    (tmp_path / "n.npz").write_bytes(npz(**arrays))
    with pytest.raises(NetworkError) as caught:
        ValueNetwork.load(tmp_path / "n.npz")
    message = one_line(caught.value)
    assert "n.npz" in message and f" {name} " in message


@HOSTILE
@given(module=st.sampled_from(["endgame", "race", "other"]), part=st.sampled_from(["W1", "b1", "W2", "b2"]),
       value=huge, checkpoint=st.booleans())
def test_a_backgammon_network_with_a_huge_weight_is_refused(good, tmp_path, module, part, value, checkpoint):
    name = f"{'model_' if checkpoint else ''}{module}_{part}"
    arrays = arrays_of(good / ("bg-checkpoint.npz" if checkpoint else "bg.npz"))
    arrays[name].reshape(-1)[0] = value
    (tmp_path / "n.npz").write_bytes(npz(**arrays))
    with pytest.raises(NetworkError) as caught:
        ModularTrainer.load_checkpoint(tmp_path / "n.npz") if checkpoint else ModularValue.load(tmp_path / "n.npz")
    message = one_line(caught.value)
    assert "n.npz" in message and module in message and part in message


@HOSTILE
@given(side=st.sampled_from([1, 2]), part=st.sampled_from(["W1", "b1", "W2", "b2"]), value=huge)
def test_a_training_checkpoint_with_a_huge_weight_is_refused(good, tmp_path, side, part, value):
    arrays = arrays_of(good / "run" / "checkpoint.npz")
    arrays[f"side{side}_{part}"].reshape(-1)[0] = value
    (tmp_path / "c.npz").write_bytes(npz(**arrays))
    with pytest.raises(TrainingError) as caught:
        load_checkpoint(tmp_path / "c.npz")
    assert f"side{side}_{part}" in one_line(caught.value)


@HOSTILE
@given(color=st.sampled_from(["black", "white"]), feature=st.sampled_from(ALPHALONE_FEATURES),
       value=st.one_of(st.sampled_from(["1e30", "-1e300", "1e999", "NaN", "Infinity", "1" + "0" * 400,
                                        "-" + "9" * 4299, "1" * 5000, "1" * 5000 + ".5"]),
                       st.floats(min_value=1.01e6, max_value=1e300).map(repr)))
def test_alphalone_weights_out_of_range_are_refused_in_one_line(tmp_path, color, feature, value):
    data = json.loads(default_weights().to_json())
    data[color][feature] = "@@"
    (tmp_path / "w.json").write_text(json.dumps(data).replace('"@@"', value))
    with pytest.raises(WeightsError) as caught:
        AlphaloneWeights.load(tmp_path / "w.json")
    assert "w.json" in one_line(caught.value)


@HOSTILE
@given(value=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_weights_within_the_bound_still_load(good, tmp_path, value):
    arrays = arrays_of(good / "net.npz")
    arrays["b2"][0] = value
    (tmp_path / "n.npz").write_bytes(npz(**arrays))
    assert ValueNetwork.load(tmp_path / "n.npz").b2[0] == value
    weights = AlphaloneWeights((value or 1.0, *default_weights().black[1:]), default_weights().white)
    (tmp_path / "w.json").write_text(weights.to_json())
    assert AlphaloneWeights.load(tmp_path / "w.json") == weights


def test_engine_weights_beyond_the_bound_are_refused():
    for text in ("1e30/6/2/4/2/0/0", "1000/6/2/4/2/0/-1e7"):
        with pytest.raises(PlayerSpecError) as caught:
            make_player(f"engine:eval=linear,weights={text}")
        one_line(caught.value)
    make_player("engine:eval=linear,weights=1000/6/2/4/2/0/0")


def test_the_shipped_networks_lie_far_inside_the_bound():
    largest = 0.0
    for path in sorted((files("sumito") / "data").iterdir()):
        if path.name.endswith(".npz"):
            for a in arrays_of(path).values():
                if a.dtype.kind == "f" and a.size:
                    largest = max(largest, float(np.abs(a).max()))
    assert 0 < largest <= bounds.MAX_WEIGHT / 100
    load_network("builtin-nnue")
    load_network("expert-nnue")


# ------------------------------------------------------------------ shapes, types and cut files
def _hostile_arrays(draw, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    name = draw(st.sampled_from(sorted(k for k in arrays if "meta" not in k and k != "trainer")))
    change = draw(st.sampled_from(["shape", "strings", "bools", "complex", "missing", "scalar"]))
    arrays = dict(arrays)
    a = arrays[name]
    if change == "shape":
        arrays[name] = np.zeros(draw(st.lists(st.integers(0, 5), max_size=3)))
    elif change == "strings":
        arrays[name] = np.full(a.shape, "x")
    elif change == "bools":
        arrays[name] = np.ones((a.size + 1,), bool)
    elif change == "complex":
        arrays[name] = a.astype(np.complex128)
    elif change == "missing":
        del arrays[name]
    else:
        arrays[name] = np.array(draw(st.floats(allow_nan=False, width=32)))
    return arrays


FILES = {"nnue.npz": (load_network, NNUEError), "net.npz": (ValueNetwork.load, NetworkError),
         "bg.npz": (ModularValue.load, NetworkError),
         "bg-checkpoint.npz": (ModularTrainer.load_checkpoint, NetworkError)}


@pytest.mark.parametrize("kind", list(FILES))
@HOSTILE
@given(data=st.data())
def test_wrong_shapes_and_types_are_one_line_errors(good, tmp_path, kind, data):
    load, error = FILES[kind]
    arrays = _hostile_arrays(data.draw, arrays_of(good / kind))
    (tmp_path / kind).write_bytes(npz(**arrays))
    try:
        load(tmp_path / kind)
    except error as exc:
        one_line(exc)


@pytest.mark.parametrize("kind", list(FILES))
@HOSTILE
@given(data=st.data())
def test_cut_files_are_one_line_errors(good, tmp_path, kind, data):
    load, error = FILES[kind]
    whole = (good / kind).read_bytes()
    cut = data.draw(st.integers(0, len(whole) - 1))
    (tmp_path / kind).write_bytes(whole[:cut])
    with pytest.raises(error) as caught:
        load(tmp_path / kind)
    one_line(caught.value)


@HOSTILE
@given(value=json_values)
def test_any_json_as_alphalone_weights_is_weights_or_one_line(tmp_path, value):
    (tmp_path / "w.json").write_text(json.dumps(value))
    try:
        AlphaloneWeights.load(tmp_path / "w.json")
    except WeightsError as exc:
        one_line(exc)


# ------------------------------------------------------------------ from the command line
def run(capsys, *argv):
    code = main([str(a) for a in argv])
    _, err = capsys.readouterr()
    return code, err


def assert_refused(code, err, *words):
    assert code == 2, err
    assert err.startswith("sumito: error: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err


def test_the_command_line_refuses_hostile_files_in_one_line(good, tmp_path, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "deep.npz").write_bytes(_with_meta(good / "nnue.npz", deep))
    huge = arrays_of(good / "nnue.npz")
    huge["b3"] = np.array(1e30)
    (tmp_path / "huge.npz").write_bytes(npz(**huge))
    for name, words in (("deep.npz", "levels deep"), ("huge.npz", "b3")):
        assert_refused(*run(capsys, "game", "--black", f"engine:depth=1,nnue={tmp_path / name}"), name, words)
    (tmp_path / "net.npz").write_bytes(_with_meta(good / "net.npz", deep))
    assert_refused(*run(capsys, "game", "--black", f"td:net={tmp_path / 'net.npz'}"), "levels deep")
    (tmp_path / "w.json").write_text('{"black": ' + deep + "}")
    assert_refused(*run(capsys, "game", "--black", f"alphalone:weights={tmp_path / 'w.json'}"), "levels deep")
    (tmp_path / "w.json").write_text('{"black": {"marbles_off": ' + "4" * 5000 + "}}")
    code, err = run(capsys, "game", "--black", f"alphalone:weights={tmp_path / 'w.json'}")
    assert_refused(code, err, "too long")
    assert "set_int_max_str_digits" not in err
    (tmp_path / "c.toml").write_text("hidden = " + "[" * 30_000 + "]" * 30_000 + "\n")
    assert_refused(*run(capsys, "train", "--config", tmp_path / "c.toml", "--games", 1, "--out", tmp_path / "r"),
                   "nested too deeply")
    _write_chunk(tmp_path, deep)
    assert_refused(*run(capsys, "nnue", "train", tmp_path / "data", "--out", tmp_path / "x.npz"), "levels deep")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "state.json").write_text(deep)
    assert_refused(*run(capsys, "nnue", "selfplay", "--out", tmp_path / "run", "--generations", 1), "levels deep")


def test_bg_and_resume_refuse_hostile_files_in_one_line(good, tmp_path, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "bg.npz").write_bytes(_with_meta(good / "bg.npz", deep))
    assert_refused(*run(capsys, "bg", "match", f"td:net={tmp_path / 'bg.npz'}", "random", "-n", 1), "bg.npz")
    assert_refused(*run(capsys, "games", "runs", "--db", _write_archive(tmp_path, deep)), "damaged")
    shutil.copytree(good / "run", tmp_path / "run")
    arrays = arrays_of(good / "run" / "checkpoint.npz")
    arrays["side1_W1"][0, 0] = 1e30
    (tmp_path / "run" / "checkpoint.npz").write_bytes(npz(**arrays))
    assert_refused(*run(capsys, "train", "--games", 3, "--out", tmp_path / "run", "--resume", "--quiet"),
                   "checkpoint.npz", "side1_W1")


def test_a_hostile_file_is_no_traceback_in_a_fresh_process(good, tmp_path):
    (tmp_path / "w.json").write_text("[" * 100_000 + "]" * 100_000)
    done = subprocess.run([sys.executable, "-m", "sumito", "game", "--black",
                           f"alphalone:weights={tmp_path / 'w.json'}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "levels deep" in done.stderr



def test_a_network_that_adds_up_past_the_win_scores_reports_no_forced_win(tmp_path):
    """Weights each inside the bound can still sum past the scores of a proven win: the search keeps
    a static evaluation below them, so it neither claims a win nor stops at depth 1."""
    shipped = Path(sumito.__file__).parent / "data" / "nnue-selftaught.npz"
    loud = arrays_of(shipped)
    loud["b3"] = np.full_like(loud["b3"], 1e5)
    (tmp_path / "loud.npz").write_bytes(npz(**loud))
    player = make_player(f"engine:threads=1,nnue={tmp_path / 'loud.npz'}")
    result = player.analyse(Position.start("standard"), depth=3)
    assert abs(result.score) < WIN_BOUND and result.depth == 3


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
