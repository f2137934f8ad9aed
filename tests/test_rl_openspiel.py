"""sumito.rlcore.openspiel_game and the openspiel-mcts player: OpenSpiel's own conformance tests, the
game against the engine's rules, serialization, observations, parameters, and the player."""

from __future__ import annotations

import importlib.util
import pickle
import re
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'sumito[rl]'")

from open_spiel.python.observation import make_observation  # noqa: E402

import sumito.rl  # noqa: E402
from sumito.arena.executor import InlineExecutor  # noqa: E402
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair  # noqa: E402
from sumito.games.abalone import DrawRules, Game, Position  # noqa: E402
from sumito.players import PlayerSpecError, make_player, parse_spec  # noqa: E402
from sumito.rlcore import openspiel_game  # noqa: E402
from sumito.rlcore.actions import action_space  # noqa: E402

NAME = openspiel_game.SHORT_NAME


def random_state(game, plies: int, rng: np.random.Generator):
    state = game.new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


# ----------------------------------------------------------------------------- OpenSpiel's checks
@pytest.mark.parametrize(
    ("spec", "sims"),
    [
        (NAME, 3),
        (f"{NAME}(layout=mini,inline_only=True,win=1)", 20),
        (f"{NAME}(layout=small,max_plies=60,repetitions=0)", 6),
    ],
)
def test_openspiel_random_simulation_test_passes(spec, sims):
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_the_game_is_registered_with_its_parameters_and_sizes():
    assert NAME in pyspiel.registered_names()
    game = pyspiel.load_game(NAME)
    assert str(game) == f"{NAME}(inline_only=False,layout=belgian-daisy,max_plies=400,repetitions=3,win=0)"
    assert game.num_players() == 2 and game.max_game_length() == 400
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.num_distinct_actions() == action_space(5).n == 1272
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [9, 9, 10]
    mini = pyspiel.load_game(f"{NAME}(layout=mini,inline_only=True,win=1)")
    assert mini.num_distinct_actions() == 276 and mini.observation_tensor_shape() == [5, 5, 10]
    assert mini.new_initial_state().array_game.variant.inline_only
    assert pyspiel.load_game(f"{NAME}(max_plies=0)").max_game_length() == openspiel_game.MAX_PLIES
    # the module run a second time (another copy of it) registers nothing twice
    spec = importlib.util.spec_from_file_location("another_openspiel_game", openspiel_game.__file__)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert pyspiel.registered_names().count(NAME) == 1
    assert type(pyspiel.load_game(NAME)) is openspiel_game.AbaloneGame


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"layout": "nowhere"}, "unknown layout 'nowhere'"),
        ({"win": 99}, "win must be a whole number in 1..14 or 0, not 99"),
        ({"repetitions": 1}, "repetitions must be a whole number in 2..1000000 or 0, not 1"),
        ({"layout": "www/1ww1/5 b"}, "layout:"),
    ],
)
def test_bad_parameters_are_a_one_line_value_error(params, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        pyspiel.load_game(NAME, params)
    assert str(info.value).startswith(f"{NAME}: ") and "\n" not in str(info.value)


class UndoChecker:
    """OpenSpiel's own undo test (``TestUndo`` of its C++ ``RandomSimTestWithUndo``, which pyspiel does not
    expose) as ``random_sim_test``'s ``state_checker_fn``: at every state of every simulation, take back
    every action to the start and compare each state with the one the simulation passed there; and
    apply and undo every legal action. It sees each state in order, so it keeps what each looked like."""

    def __init__(self) -> None:
        self.trail: list[tuple] = []
        self.states = 0

    @staticmethod
    def look(state) -> tuple:
        return (str(state), state.history(), state.move_number(), state.is_terminal(), state.legal_actions(),
                state.observation_tensor(0), state.information_state_tensor(1), state.returns())

    def __call__(self, state) -> None:
        self.states += 1
        if not state.history():
            self.trail = []  # a new simulation
        self.trail.append(self.look(state))
        assert len(self.trail) == len(state.history()) + 1
        if not state.is_terminal():
            player = state.current_player()
            for action in state.legal_actions():
                child = state.child(action)
                child.undo_action(player, action)
                assert self.look(child) == self.trail[-1]
        back = state.clone()
        first_player = back.array_game.start.side_to_move - 1
        for depth in range(len(self.trail) - 2, -1, -1):
            back.undo_action((first_player + depth) % 2, back.history()[-1])
            assert self.look(back) == self.trail[depth]
        assert back.is_initial_state()


@pytest.mark.parametrize(
    ("spec", "sims"),
    [(f"{NAME}(layout=mini,max_plies=40)", 3), (f"{NAME}(layout=mini,inline_only=True,win=1,max_plies=30)", 4)],
)
def test_openspiel_random_simulation_test_with_undo_checks_passes(spec, sims):
    game = pyspiel.load_game(spec)
    assert game.get_type().provides_information_state_tensor
    checker = UndoChecker()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False, state_checker_fn=checker)
    assert checker.states > sims  # it saw the states


def test_undo_is_named_and_checked_and_the_information_state_is_the_observation():
    game = pyspiel.load_game(NAME, {"layout": "mini"})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="no action to undo"):
        state.undo_action(0, 0)
    first = state.legal_actions()[0]
    state.apply_action(first)
    wrong = rf"undo_action\(0, {first + 1}\), but the last action was {first}, by player 0"
    with pytest.raises(ValueError, match=wrong):
        state.undo_action(0, first + 1)
    for player in (0, 1):
        assert state.information_state_tensor(player) == state.observation_tensor(player)
    assert state.information_state_string(0) == str(first) == state.history_str()
    state.undo_action(0, first)
    assert state.history() == [] and state.move_number() == 0 and str(state) == str(game.new_initial_state())
    # a Python-side undo, and the C++ side does not see it: full_history() (not answered by the state) keeps it
    assert len(state.full_history()) == 1


# ----------------------------------------------------------------------------- the engine's rules
@pytest.mark.parametrize(
    ("layout", "inline_only"), [("belgian-daisy", False), ("small", False), ("mini", False), ("mini", True)]
)
def test_legal_actions_and_endings_are_the_engines_along_random_games(layout, inline_only):
    rng = np.random.default_rng(len(layout))
    game = pyspiel.load_game(NAME, {"layout": layout, "inline_only": inline_only, "max_plies": 120})
    space = action_space(Position.start(layout).variant.side)
    for _ in range(2):
        state = game.new_initial_state()
        engine = Game(Position.start(layout, inline_only=inline_only), DrawRules(max_plies=120, repetitions=3))
        while True:
            assert str(state) == engine.position.to_string()
            assert state.array_game.hash == engine.position.zobrist
            outcome = engine.outcome()
            assert state.is_terminal() == (outcome is not None)
            if outcome is not None:
                expected = {None: [0.0, 0.0], 1: [1.0, -1.0], 2: [-1.0, 1.0]}[outcome.winner]
                assert state.returns() == expected
                assert state.legal_actions() == []
                break
            assert state.current_player() == engine.position.side_to_move - 1
            legal = state.legal_actions()
            assert legal == sorted(space.move_to_action(m) for m in engine.legal_moves())
            action = int(rng.choice(legal))
            move = space.action_to_move(action, engine.position)
            assert state.action_to_string(action) == space.notations[action] == move.notation()
            state.apply_action(action)
            engine.push(move)
            assert state.returns() == [0.0, 0.0] or state.is_terminal()


# ----------------------------------------------------------------------------- clones and serialization
def test_clones_are_independent_and_serialization_round_trips():
    rng = np.random.default_rng(3)
    game = pyspiel.load_game(NAME, {"layout": "mini", "win": 1})
    state = random_state(game, 9, rng)
    assert not state.is_terminal()
    before = str(state)
    clone = state.clone()
    assert type(clone) is type(state) and clone.history() == state.history()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == before and len(clone.history()) == len(state.history()) + 1

    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state) and state2.history() == state.history()
    assert state2.legal_actions() == state.legal_actions()
    assert state2.array_game.seen == state.array_game.seen

    state3 = pickle.loads(pickle.dumps(state))
    assert str(state3) == str(state) and state3.history() == state.history()
    state3.apply_action(state3.legal_actions()[-1])  # a live state, not a picture of one
    game3 = pickle.loads(pickle.dumps(game))
    assert str(game3) == str(game)


def test_a_position_string_layout_survives_the_game_string():
    text = "1ww/www1/1b1b1/1bb1/1b1 w 0 0 4"
    game = pyspiel.load_game(NAME, {"layout": text, "win": 1})
    state = game.new_initial_state()
    assert str(state) == text and state.current_player() == 1
    state.apply_action(state.legal_actions()[0])
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(game2) == str(game) and str(state2) == str(state)


def there_and_back(game):
    """Four plies from the start of ``game`` that lead back to it (each side moves one marble and back)."""
    start = game.new_initial_state()
    notations = start.array_game.space.notations
    index = {text: action for action, text in enumerate(notations)}
    for a in start.legal_actions():
        for b in start.child(a).legal_actions():
            back = [index.get(notations[x][2:] + notations[x][:2]) for x in (a, b)]  # inline: xy back is yx
            if len(notations[a]) != 4 or len(notations[b]) != 4 or None in back:
                continue
            state = start.child(a).child(b)
            plies = [a, b, *back]
            for x in plies[2:]:
                if x not in state.legal_actions():
                    break
                state.apply_action(x)
            else:
                if str(state).split()[:4] == str(start).split()[:4]:  # the same, but for the move number
                    return plies
    raise AssertionError("no way there and back")


def test_earlier_positions_count_for_the_repetition_rule():
    game = pyspiel.load_game(NAME, {"layout": "mini"})
    plies = there_and_back(game)
    state = game.new_initial_state()
    for action in plies:
        state.apply_action(action)
    start_hash = game.new_initial_state().array_game.hash
    assert state.array_game.hash == start_hash and not state.is_terminal()  # the start twice: no draw yet
    seeded = openspiel_game.state_at(game, [start_hash])  # the start was seen once before it
    assert not seeded.is_terminal() and seeded.array_game.seen[start_hash] == 2
    restored = pickle.loads(pickle.dumps(seeded))
    for action in plies:
        seeded.apply_action(action)
        restored.apply_action(action)
    for done in (seeded, restored):
        assert done.is_terminal() and done.returns() == [0.0, 0.0]
        assert done.array_game.outcome.reason == "repetition"


# ----------------------------------------------------------------------------- observations
def test_the_observation_is_the_array_games_planes_for_the_observer():
    rng = np.random.default_rng(8)
    game = pyspiel.load_game(NAME, {"layout": "small"})
    observation = make_observation(game)
    state = random_state(game, 11, rng)
    for player in (0, 1):
        planes = state.array_game.observe(player + 1)
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(player)), planes.ravel())
        observation.set_from(state, player)
        assert observation.dict["observation"].shape == (7, 7, 10)
        np.testing.assert_array_equal(observation.dict["observation"], planes)
        assert state.observation_string(player).startswith(str(state))
    assert state.observation_string(0) != state.observation_string(1)
    assert game.make_observer({}) is not None  # OpenSpiel's C++ side passes the parameters alone
    with pytest.raises(ValueError, match="takes no observation parameters"):
        make_observation(game, None, {"colour": "blue"})


# ----------------------------------------------------------------------------- the player
def test_the_mcts_player_plays_legal_moves_and_its_spec():
    player = make_player("openspiel-mcts:sims=20,seed=4")
    assert player.name == "openspiel-mcts:sims=20,seed=4"
    assert make_player("openspiel-mcts").name == "openspiel-mcts"
    for layout in ("belgian-daisy", "mini"):
        position = Position.start(layout)
        assert position.is_legal(player.choose(position))
    again = [make_player("openspiel-mcts:sims=20,seed=4").choose(Position.start("mini")) for _ in range(2)]
    assert again[0] == again[1]
    with pytest.raises(PlayerSpecError, match=re.escape("sims=0 is out of range")):
        make_player("openspiel-mcts:sims=0")


def test_the_mcts_player_takes_a_winning_push_off():
    position = Position.from_string("3/w2b/1wwb1/3b/wbb b 0 1 34")  # 1 of Black's 17 moves wins
    assert sum(position.play(m).winner() == 1 for m in position.legal_moves()) == 1
    move = make_player("openspiel-mcts:sims=50,seed=1").choose(position)
    assert position.play(move).winner() == 1


def test_the_mcts_player_beats_random_on_the_mini_board():
    settings = ArenaSettings.from_layout("mini", seed=11)
    tasks = schedule(["openspiel-mcts:sims=40", "random"], 6, settings)
    results = [result for _, result in InlineExecutor().run(play_game, tasks)]
    summary = summarize_pair(results)
    # against random moves even a short search wins nearly every game; 4 of 6 leaves a wide margin
    assert summary.wins >= 4 and summary.wins > summary.losses, summary


def test_without_openspiel_the_game_and_the_player_say_how_to_install_it(monkeypatch):
    for name in list(sys.modules):
        if name.split(".")[0] in ("pyspiel", "open_spiel"):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "sumito.rlcore.openspiel_game")
    with pytest.raises(ImportError) as info:
        sumito.rl.register_openspiel()
    assert str(info.value) == (
        "sumito.rl.register_openspiel needs OpenSpiel (pyspiel is not installed): pip install 'sumito[rl]'"
    )
    with pytest.raises(PlayerSpecError) as info:
        make_player("openspiel-mcts:sims=5")
    assert str(info.value) == "openspiel-mcts needs OpenSpiel: pip install 'sumito[rl]'"
    parse_spec("openspiel-mcts:sims=5")  # the spec itself is fine: the arena checks specs before it plays
