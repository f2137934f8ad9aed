"""The players: specs, legal moves on every board, options, and the paper-specific behaviour."""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest

from sumito.evaluation.alphalone import AlphaloneWeights, WeightsError, default_weights
from sumito.games.abalone import Move, Position
from sumito.players import PlayerSpecError, make_player, parse_spec, player_names
from sumito.search.alphabeta import search
from sumito.search.context import SearchContext

from helpers import position_with, random_playout

SEARCH_PLAYERS = [
    "greedy",
    "greedy:eval=alphalone",
    "heuristic:depth=2",
    "abla:depth=2",
    "abla:depth=3,heuristic=single",
    "alphalone:depth=1,seed=3",
    "alphalone:depth=0",
    "engine:depth=3",
    "engine:time=0.05",
]


def test_every_paper_player_is_registered():
    assert {"random", "greedy", "heuristic", "abla", "alphalone", "engine", "human"} <= set(player_names())


@pytest.mark.parametrize("spec", SEARCH_PLAYERS)
@pytest.mark.parametrize("layout,inline_only", [("standard", False), ("belgian-daisy", False), ("small", False),
                                                ("mini", True)])
def test_players_choose_legal_moves(spec, layout, inline_only):
    player = make_player(spec)
    rng = np.random.default_rng(len(spec))
    for pos in random_playout(Position.start(layout, inline_only=inline_only), 40, rng)[::13]:
        if pos.winner() is None and pos.count_legal_moves():
            assert pos.is_legal(player.choose(pos))


@pytest.mark.parametrize(
    "spec,message",
    [
        ("abla:depth=x", "must be int"),
        ("abla:heuristic=double", "combined, single"),
        ("abla:colour=1", "it accepts: depth, heuristic, w1, w2, off, ties, seed"),
        ("heuristic:depth=0", "depth=0 is out of range; it must be within [1, 12]"),
        ("greedy:eval=magic", "unknown evaluation"),
        ("engine:time=-1", "time=-1 is out of range; it must be within [0, 86400]"),
        ("engine:depth=0", "within [1, 64]"),
        ("engine:hash=0", "within [1, 4096]"),
        ("engine:nodes=0", "nodes=0 is out of range"),
        ("engine:eval=nope", "unknown evaluation"),
        ("alphalone:time=-2", "within [0, 86400]"),
        ("alphalone:weights=/no/such/file.json", "cannot read weights file"),
        ("alphalone:thresholds=maybe", "must be bool"),
        ("alphalone:ordering=sideways", "ordering must be one of code, own, off"),
        ("alphalone:two_best=three", "two_best must be one of nodes, root, off"),
        ("alphalone:norm=l3", "norm must be one of l1, l2"),
        ("alphalone:features=pixels", "features must be one of code, text"),
        ("chess", "unknown player 'chess'"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(PlayerSpecError, match=re.escape(message)):
        make_player(spec)


def test_specs_parse_typed_options():
    kind, options = parse_spec("alphalone:depth=1, time=0.5, thresholds=off")
    assert kind.name == "alphalone" and options == {"depth": 1, "time": 0.5, "thresholds": False}


def test_engine_takes_the_win_abla_sees_it_too():
    pos = position_with(["g5", "h5", "f5"], ["i5", "a1", "a2"], lost=(0, 5))
    for spec in ("engine:depth=2", "abla:depth=1", "heuristic:depth=1", "greedy", "alphalone:depth=1,two_best=no"):
        move = make_player(spec).choose(pos)
        assert pos.play(move).winner() == 1, spec


def test_abla_is_deterministic_and_alphalone_is_seeded():
    pos = random_playout(Position.start("standard"), 10, np.random.default_rng(2))[-1]
    a, b = make_player("abla:depth=3"), make_player("abla:depth=3")
    assert a.choose(pos) == b.choose(pos)
    for spec in ("alphalone:depth=1", "alphalone:depth=2"):  # the default: random picks inside the search
        first = [make_player(f"{spec},seed=7").choose(pos) for _ in range(2)]
        assert first[0] == first[1], spec
    # the text reading's random choice between the two best root moves
    picks = {make_player(f"alphalone:depth=1,two_best=root,seed={s}").choose(pos).notation() for s in range(12)}
    assert len(picks) == 2


def test_alphalone_two_best_off_is_deterministic():
    pos = Position.start("mini")
    picks = {make_player(f"alphalone:depth=1,seed={s},two_best=no").choose(pos).notation() for s in range(6)}
    assert len(picks) == 1


def test_alphalone_random_picks_inside_the_search_vary_with_the_seed():
    pos = random_playout(Position.start("mini", inline_only=True), 6, np.random.default_rng(4))[-1]
    picks = {make_player(f"alphalone:adaptive=off,seed={s}").choose(pos).notation() for s in range(16)}
    assert len(picks) > 1
    assert len({make_player("alphalone:adaptive=off,two_best=off").choose(pos).notation() for _ in range(3)}) == 1


def test_alphalone_adaptive_depth_is_one_without_contact():
    player = make_player("alphalone:depth=2")
    start = Position.start("mini")
    assert player.search_depth(start) == 1  # nobody touches anybody at the start
    touching = position_with(["c3", "c2"], ["c4", "e5"], side=3, win_threshold=2)
    assert player.search_depth(touching) == 2
    assert make_player("alphalone:depth=2,adaptive=off").search_depth(start) == 2


def test_alphalone_baseline_is_the_best_successor_by_its_own_weights():
    from sumito.evaluation.alphalone import feature_vector

    pos = random_playout(Position.start("mini", inline_only=True), 4, np.random.default_rng(9))[-1]
    player = make_player("alphalone:depth=0")
    w = default_weights()
    own = np.array(w.black if pos.side_to_move == 1 else w.white)
    values = {m.notation(): float(own @ feature_vector(pos.play(m), "code")) for m in pos.legal_moves()}
    assert values[player.choose(pos).notation()] == pytest.approx(max(values.values()))
    assert {make_player(f"alphalone:depth=0,seed={s}").choose(pos) for s in range(5)} == {player.choose(pos)}


def test_alphalone_time_limit_returns_early():
    pos = Position.start("standard")
    player = make_player("alphalone:depth=3,time=0.05,thresholds=off")
    t = time.perf_counter()
    assert pos.is_legal(player.choose(pos))
    assert time.perf_counter() - t < 2.0


def test_alphalone_weights_file_round_trip(tmp_path):
    w = AlphaloneWeights(tuple(float(i + 1) for i in range(10)), tuple(float(-i - 1) for i in range(10)))
    path = tmp_path / "w.json"
    w.save(path)
    assert AlphaloneWeights.load(path) == w
    v = w.vector()  # the authors' code: the absolute values sum to 1
    assert np.abs(v[:10]).sum() == pytest.approx(1) and np.abs(v[10:]).sum() == pytest.approx(1)
    v = w.vector("l2")
    assert np.linalg.norm(v[:10]) == pytest.approx(1) and np.linalg.norm(v[10:]) == pytest.approx(1)
    player = make_player(f"alphalone:depth=1,weights={path}")
    assert player.weights == w


@pytest.mark.parametrize(
    "content,message",
    [
        ("not json", "not JSON"),
        ("[1, 2]", "expected an object"),
        ('{"white": {}}', "no 'black' weights"),
        (json.dumps({"black": {"black_off": 1}, "white": {}}), "lack"),
        (json.dumps({"black": {"colour": 1}, "white": {}}), "unknown black feature 'colour'"),
    ],
)
def test_bad_weights_files_are_refused(tmp_path, content, message):
    path = tmp_path / "w.json"
    path.write_text(content)
    with pytest.raises(WeightsError, match=message):
        AlphaloneWeights.load(path)


def test_non_numeric_and_zero_weights_are_refused():
    data = json.loads(default_weights().to_json())
    data["white"]["white_off"] = "heavy"
    with pytest.raises(WeightsError, match="must be a number"):
        AlphaloneWeights.from_json(json.dumps(data))
    data = json.loads(default_weights().to_json())
    data["black"] = dict.fromkeys(data["black"], 0)
    with pytest.raises(WeightsError, match="all zero"):
        AlphaloneWeights.from_json(json.dumps(data))


def test_engine_reports_its_search():
    player = make_player("engine:depth=4")
    pos = Position.start("standard")
    player.choose(pos)
    assert player.last.depth == 4 and player.last.nodes > 0


def test_engine_weights_option():
    player = make_player("engine:depth=2,weights=1000/1/1/1/1/1/1")
    assert list(player.evaluation.params) == [1000, 1, 1, 1, 1, 1, 1]
    with pytest.raises(PlayerSpecError, match="takes 7 weights, not 2"):
        make_player("engine:weights=1/2")
    with pytest.raises(PlayerSpecError, match="numbers separated by '/'"):
        make_player("engine:weights=a/b")


def test_engine_steers_clear_of_a_repetition_when_ahead():
    # Black is three marbles up: a repetition (a draw) is worse than any quiet move
    pos = Position.start("belgian-daisy")
    ahead = position_with(pos.marbles(1), pos.marbles(2)[3:], lost=(0, 3))
    first = make_player("engine:depth=3").choose(ahead)
    repeated = ahead.play(first).zobrist
    # the position after ``first`` has occurred twice (threefold repetition is the draw rule)
    second = make_player("engine:depth=3").choose(ahead, history=[repeated, 0, repeated])
    assert second != first
    # once is not a draw (the game's rule is threefold), unless the search plays to "any repetition" (rules=0)
    assert make_player("engine:depth=3").choose(ahead, history=[repeated]) == first
    assert make_player("engine:depth=3,rules=0").choose(ahead, history=[repeated]) != first


def test_engine_contempt_prices_a_draw_by_repetition():
    pos = Position.start("standard")
    level = make_player("engine:depth=2,contempt=0").choose(pos)
    history = [pos.play(level).zobrist, 0, pos.play(level).zobrist]  # twice before: the third is a draw
    # a huge contempt makes the repeating move the worst; none makes repeating (score 0) acceptable
    assert make_player("engine:depth=2,contempt=100").choose(pos, history=history) != level
    player = make_player("engine:depth=2,contempt=100")
    player.choose(pos, history=history)
    assert player.last.score > -100 * player.marble_value


@pytest.mark.parametrize(
    "spec,message",
    [
        ("engine:time=nan", "must be float"),
        ("engine:time=inf", "must be float"),
        ("engine:eval=alphalone", "not zero-sum"),
        ("alphalone:time=nan", "must be float"),
        ("abla:w1=inf", "must be float"),
        ("engine:weights=1/2/3/4/5/6/nan", "finite numbers"),
        ("engine:contempt=nan", "must be float"),
    ],
)
def test_non_finite_and_unfit_options_are_refused(spec, message):
    with pytest.raises(PlayerSpecError, match=re.escape(message)):
        make_player(spec)


def test_random_ties_pick_among_the_equally_best_moves():
    pos = Position.start("standard")
    player = make_player("heuristic")
    codes = pos.legal_move_codes()
    _, values, _ = search(SearchContext.of(pos), codes, 2, player.evaluation.kind, player.evaluation.params,
                          values="all")
    best = {Move(int(c), 5).notation() for c in codes[values >= values.max()]}
    picks = {make_player(f"heuristic:ties=random,seed={s}").choose(pos).notation() for s in range(12)}
    assert picks <= best and len(picks) > 1
    assert make_player("heuristic").choose(pos).notation() in best
    with pytest.raises(PlayerSpecError, match="ties must be first or random"):
        make_player("abla:ties=coin")
