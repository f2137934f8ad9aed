"""Every parser against hostile input: a valid result or its one-line error, never another exception.

Position strings, move notation, game records, player specs, training options and protocol lines are
fed random text (ASCII, any Unicode, digits of other scripts, huge numbers) and mutations of valid
input. Bounded example counts keep this a few seconds in CI.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sumito.games.abalone import (
    LAYOUTS,
    NotationError,
    Position,
    PositionError,
    RecordError,
    parse_records,
)
from sumito.learn.config import FIELDS, typed_option
from sumito.learn.training import TrainingConfig, TrainingError
from sumito.players.base import PlayerSpecError, parse_spec
from sumito.protocol import EngineProtocol

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STANDARD = LAYOUTS["standard"].position_string
# characters that tend to break parsers: other scripts' digits, superscripts, separators, controls
ODD = "0123456789bwBW/ .-²³¹١٢٣٤۵६७８९\u00a0\u2028\x00\t\n\r\"[]{};:=,\\é€\ufffd"
tokens = st.text(alphabet=ODD, max_size=40)
anything = st.one_of(st.text(max_size=200), tokens, st.from_regex(r"[0-9]{1,6000}", fullmatch=True))


def one_line(exc: Exception) -> None:
    message = str(exc)
    assert message and "\n" not in message and len(message) < 2000, message


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with a few characters replaced, inserted or deleted, or a run of digits put in."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(chars)))
        op = draw(st.sampled_from(["replace", "insert", "delete", "digits"]))
        if op == "digits":
            chars[i:i] = list(draw(st.from_regex(r"[0-9]{1,30}", fullmatch=True)))
        elif op == "insert" or not chars or i == len(chars):
            chars.insert(i, draw(st.sampled_from(ODD)))
        elif op == "replace":
            chars[i] = draw(st.sampled_from(ODD))
        else:
            del chars[i]
    return "".join(chars)


@FUZZ
@given(st.one_of(anything, mutated(STANDARD)))
def test_position_strings(text):
    try:
        position = Position.from_string(text)
    except PositionError as exc:
        one_line(exc)
    else:
        assert Position.from_string(position.to_string()).to_string() == position.to_string()


@FUZZ
@given(anything)
def test_move_notation(text):
    start = Position.start()
    try:
        move = start.parse_move(text)
    except NotationError as exc:
        one_line(exc)
    else:
        assert start.is_legal(move)


RECORD = '[Event "x"]\n[Layout "standard"]\n[MaxPlies "1000"]\n\n1. a1b1 i5h5 2. b2c3 *\n'


@FUZZ
@given(st.one_of(anything, mutated(RECORD), st.builds(
    lambda tag, value: f'[{tag} "{value}"]\n\n*\n',
    st.sampled_from(["MaxPlies", "WinThreshold", "Repetitions", "NoCapturePlies", "Plies", "Position", "Layout"]),
    st.one_of(tokens, st.from_regex(r"[0-9]{1,6000}", fullmatch=True)),
)))
def test_game_records(text):
    try:
        records = parse_records(text)
    except RecordError as exc:
        one_line(exc)
    else:
        assert all(r.game.plies >= 0 for r in records)


@FUZZ
@given(st.one_of(anything, st.builds(lambda n, o: f"{n}:{o}", st.sampled_from(["engine", "abla", "td", "random",
                                                                                "alphalone", "heuristic"]), tokens)))
def test_player_specs(spec):
    try:
        parse_spec(spec)
    except PlayerSpecError as exc:
        one_line(exc)


@FUZZ
@given(st.sampled_from([*FIELDS, "nosuch"]), st.one_of(anything, st.integers(), st.floats(), st.booleans()))
def test_training_options(key, value):
    try:
        TrainingConfig(**{key: typed_option(key, value)})
    except TrainingError as exc:
        one_line(exc)


@FUZZ
@given(st.lists(st.one_of(anything, st.sampled_from(["go", "go depth 1", "position startpos", "d", "moves",
                                                      "undo", "isready", "player random:seed=1"])), max_size=6))
def test_protocol_lines(lines):
    out = io.StringIO()
    protocol = EngineProtocol("random:seed=1", io.StringIO(), out)
    for line in lines:
        if not protocol.handle(line.replace("\n", " ").replace("\r", " ")):
            break
    for reply in out.getvalue().splitlines():
        assert not reply.startswith("info string error ") or len(reply) < 2000, reply


def test_the_fuzzers_can_fail():
    """A parser that raised something else would be caught: the helper itself refuses a two-line error."""
    with pytest.raises(AssertionError):
        one_line(ValueError("two\nlines"))
