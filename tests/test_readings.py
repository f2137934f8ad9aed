"""The readings of the papers that docs/reproductions.md names, locked: under each default a
paper's own published results can occur, and the other reading stays an option.

- Abalearn's heuristic player and ABLA count a pushed-off marble beyond the edge (``off``), so
  they take marbles and beat ``random`` outright; with ``off=0`` (the marble drops out of the sum)
  they would not take a hanging marble.
- ``td`` picks the afterstate of highest value (the paper's "the move for which the function
  approximator gave the higher value"); adding the immediate reward is ``choice=reward``.
- Online TD(λ)'s traces decay by λ (eq. 5); tests/test_td.py checks both decays by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair
from sumito.errors import SumitoError
from sumito.games.abalone import Position
from sumito.models.abalone_encodings import ABALEARN2_INPUTS
from sumito.models.learned import network_params
from sumito.models.network import ValueNetwork
from sumito.players import make_player

from helpers import position_with

# Black can push a White marble off in one move (the only push-off on the board); nothing else is at stake
HANGING = {
    "corner": position_with(["c3", "b2", "e5", "e6"], ["a1", "i9", "i8", "h8"]),
    "side": position_with(["e4", "d3", "c2"], ["b1", "e6", "e7", "f7"]),
}
PUSHERS = ["heuristic", "heuristic:depth=1", "abla:depth=3,heuristic=single", "abla:depth=3", "abla:depth=4"]


@pytest.mark.parametrize("where", HANGING)
@pytest.mark.parametrize("spec", PUSHERS)
def test_the_papers_search_players_take_a_hanging_marble(spec, where):
    pos = HANGING[where]
    move = make_player(spec).choose(pos)
    assert pos.play(move).lost == (0, 1), f"{spec} played {move}"


@pytest.mark.parametrize("spec", ["heuristic:off=0", "abla:depth=3,off=0"])
def test_with_lost_marbles_dropping_out_of_the_sum_the_marble_is_left_hanging(spec):
    # the old reading, kept as an option: pushing the corner marble off costs the pusher
    pos = HANGING["corner"]
    assert pos.play(make_player(spec).choose(pos)).lost == (0, 0)


def match(a: str, b: str, games: int, seed: int = 1):
    settings = ArenaSettings.from_layout("standard", seed=seed)
    return summarize_pair([r for _, r in make_executor(1).run(play_game, schedule([a, b], games, settings))])


@pytest.mark.parametrize("spec", ["heuristic", "abla:depth=2,heuristic=single"])
def test_heuristic_and_single_abla_beat_random_outright_and_take_marbles(spec):
    summary = match(spec, "random", 4)
    assert summary.wins == 4, summary
    assert summary.marbles_won >= 24 and summary.marbles_lost <= 2, summary


def quiet_lover(gamma: float = 0.9) -> ValueNetwork:
    """An Abalearn 2 network whose value falls as the opponent loses marbles (input 7): it
    values any quiet move above a push-off."""
    n = len(ABALEARN2_INPUTS)
    W1 = np.zeros((1, n))  # one hidden unit
    W1[0, 7] = -20.0  # the opponent's lost-marble fraction
    return ValueNetwork.from_arrays(W1, np.zeros(1), np.array([[4.0]]), np.array([-2.0]),
                                    metadata={"encoding": "abalearn2", "gamma": gamma, "rewards": "marbles",
                                              "choice": "value"})


def test_td_plays_by_value_alone_and_does_not_push_when_the_network_says_not_to(tmp_path):
    path = tmp_path / "quiet.npz"
    quiet_lover().save(path)
    pos = HANGING["corner"]
    by_value = make_player(f"td:net={path}").choose(pos)
    assert pos.play(by_value).lost == (0, 0)
    # the reward-added reading pushes whatever the network says: the push scores >= 1 > any quiet move
    with_reward = make_player(f"td:net={path},choice=reward").choose(pos)
    assert pos.play(with_reward).lost == (0, 1)


def test_td_takes_a_winning_push_whatever_its_values(tmp_path):
    path = tmp_path / "quiet.npz"
    quiet_lover().save(path)
    pos = position_with(["c3", "b2", "e5", "e6"], ["a1", "i9", "i8", "h8"], lost=(0, 5))
    assert make_player(f"td:net={path}").choose(pos) == next(m for m in pos.legal_moves() if m.pushed)


def test_a_network_saved_before_the_choice_was_recorded_plays_as_it_was_trained(tmp_path):
    net = quiet_lover()
    del net.metadata["choice"]
    path = tmp_path / "old.npz"
    net.save(path)
    pos = HANGING["corner"]
    assert make_player(f"td:net={path}").choice == "reward"  # as every network before the choice existed
    assert pos.play(make_player(f"td:net={path},choice=value").choose(pos)).lost == (0, 0)


def test_td_plays_a_network_at_the_reward_scale_it_was_trained_with(tmp_path):
    # choice=reward at scale 0.1: the push scores 0.1 + 0.9 V(after it) ≈ 0.22, a quiet move 0.9 · 0.5 = 0.45
    net = quiet_lover()
    net.metadata.update(choice="reward", reward_scale=0.1)
    path = tmp_path / "scaled.npz"
    net.save(path)
    pos = HANGING["corner"]
    player = make_player(f"td:net={path}")
    assert player.reward_scale == 0.1 and player.name == f"td:net={path}"
    assert pos.play(player.choose(pos)).lost == (0, 0)  # read at scale 1, the push would score 1.12 and be played
    unscaled = make_player(f"td:net={path},reward_scale=1")  # an explicit option still overrides
    assert pos.play(unscaled.choose(pos)).lost == (0, 1) and unscaled.name.endswith(",reward_scale=1")
    # inside a search (engine:net=), a marble on the board counts what it counted in training
    assert network_params(str(path), 5, 14, 6)[8] == 0.1


def test_td_breaks_ties_at_random_when_asked_and_by_generation_order_otherwise(tmp_path):
    # Abalearn 2 counts marbles by region: many quiet moves of the start give the very same inputs
    path = tmp_path / "quiet.npz"
    quiet_lover().save(path)
    pos = Position.start("standard")
    first = {make_player(f"td:net={path},seed={k}").choose(pos) for k in range(12)}
    assert len(first) == 1
    chosen = {make_player(f"td:net={path},ties=random,seed={k}").choose(pos) for k in range(12)}
    assert len(chosen) > 1 and first < set(pos.legal_moves())
    again = {make_player(f"td:net={path},ties=random,seed={k}").choose(pos) for k in range(12)}
    assert again == chosen  # seeded


def test_training_records_its_reward_scale_and_a_bad_one_is_refused(tmp_path):
    trainer = mini_trainer(reward_scale=0.03, choice="reward")
    path = tmp_path / "trained.npz"
    trainer.network.save(path)
    assert ValueNetwork.load(path).metadata["reward_scale"] == 0.03
    assert make_player(f"td:net={path}").reward_scale == 0.03
    with pytest.raises(SumitoError, match="reward_scale"):
        make_player(f"td:net={path},reward_scale=0")
    net = quiet_lover()
    net.metadata["reward_scale"] = -1
    net.save(path)
    with pytest.raises(SumitoError, match="metadata 'reward_scale' is -1, not a number above 0"):
        make_player(f"td:net={path}")


def test_td_choice_is_checked(tmp_path):
    from sumito.players import PlayerSpecError

    path = tmp_path / "quiet.npz"
    quiet_lover().save(path)
    with pytest.raises(PlayerSpecError, match="td choice must be one of value, reward"):
        make_player(f"td:net={path},choice=greedy")


# ------------------------------------------------------------------ the other readings, as options
def mini_trainer(**options):
    from sumito.games.abalone import DrawRules, Position
    from sumito.learn.abalone_game import PlayerOpponent
    from sumito.learn.training import Trainer, TrainingConfig
    from sumito.models.abalone_game import AbaloneLearningGame

    config = TrainingConfig(**{"layout": "mini", "max_plies": 60, "repetitions": 20, **options})
    game = AbaloneLearningGame(config.encoding, Position.start(config.layout), DrawRules(config.max_plies, 20))
    return Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(choice="best"), "choice must be one of value, reward"),
        (dict(trace_decay="gamma"), "trace_decay must be one of lambda, gamma-lambda"),
        (dict(view="white"), "view must be 'mover' or 'black'"),
        (dict(view="black", regime="opponent"), "view=black"),
        (dict(credit="move"), "credit must be 'transition' or 'afterstate'"),
        (dict(credit="afterstate", td_mode="offline"), "credit=afterstate"),
        (dict(reward_scale=0.0), "reward_scale must be above 0"),
    ],
)
def test_reading_options_are_checked(options, message):
    from sumito.learn.training import TrainingConfig, TrainingError

    with pytest.raises(TrainingError, match=message):
        TrainingConfig(**options)


@pytest.mark.parametrize(
    "options", [dict(view="black"), dict(credit="afterstate"), dict(reward_scale=0.1), dict(choice="reward")]
)
def test_other_readings_train_deterministically(options):
    a, b = mini_trainer(seed=3, **options), mini_trainer(seed=3, **options)
    before = a.network.theta.copy()
    for t in (a, b):
        for _ in range(5):
            t.play_game()
    assert not np.array_equal(before, a.network.theta)
    assert np.array_equal(a.network.theta, b.network.theta)
    assert a.network.metadata["view"] == options.get("view", "mover")


def test_a_network_of_one_colours_view_is_minimised_by_white(tmp_path):
    # values Black's view: falls as Black loses marbles (input 3, own_off from Black's view)
    n = len(ABALEARN2_INPUTS)
    W1 = np.zeros((1, n))
    W1[0, 3] = 20.0  # hidden unit rises with Black's losses; the output falls with it
    net = ValueNetwork.from_arrays(W1, np.zeros(1), np.array([[-4.0]]), np.array([2.0]),
                                   metadata={"encoding": "abalearn2", "gamma": 0.9, "view": "black"})
    path = tmp_path / "black.npz"
    net.save(path)
    # White to move can push a Black marble off: minimising Black's value, it does
    pos = position_with(["a1", "i9", "i8", "h8"], ["c3", "b2", "e5", "e6"], to_move="w")
    move = make_player(f"td:net={path}").choose(pos)
    assert pos.play(move).lost == (1, 0)
