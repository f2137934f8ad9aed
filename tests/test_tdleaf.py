"""TD-Leaf(λ): the ``search_depth`` option, the principal-variation leaves, the TD rewards between
leaves, exact resume and a small learning check (all on the mini board)."""

from __future__ import annotations

import numpy as np
import pytest

from sumito.defaults import METHOD_PRESETS
from sumito.games.abalone import DrawRules, Game, Move, Position
from sumito.games.abalone.kernels import PUSH_OFF_BIT
from sumito.learn.abalone_game import PlayerOpponent
from sumito.learn.run import load_checkpoint, save_checkpoint
from sumito.learn.training import Trainer, TrainingConfig, TrainingError
from sumito.models.abalone_encodings import encode_position
from sumito.models.abalone_game import AbaloneLearningGame
from sumito.models.network import ValueNetwork

MINI = dict(layout="mini", max_plies=60, repetitions=20)
# Black to move and no push-off now, but b1b2 (then anything) lets a3b4 push a White marble
# off two plies later (a brute-force material minimax below confirms both).
SETUP = "2w/w3/ww1bw/bbb1/2b b 0 0 7"


def trainer(start: Position | None = None, **options) -> Trainer:
    config = TrainingConfig(**{**MINI, **options})
    position = start if start is not None else Position.start(config.layout)
    game = AbaloneLearningGame(config.encoding, position, DrawRules(config.max_plies, config.repetitions))
    return Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))


def record_leaves(t: Trainer) -> list:
    """Wrap the game's search so that every (position searched, first move, leaf) is kept."""
    log = []
    search = t.game.search_leaf

    def wrapped(state, network, depth, first=None):
        leaf = search(state, network, depth, first)
        log.append((state.position, first, leaf))
        return leaf

    t.game.search_leaf = wrapped
    return log


def material(position: Position, me: int) -> int:
    return position.lost[2 - me] - position.lost[me - 1]


def minimax_material(position: Position, me: int, depth: int) -> int:
    """The slow, obvious reference: the best material ``me`` can force within ``depth`` plies."""
    if depth == 0 or position.winner() is not None:
        return material(position, me)
    values = [minimax_material(child, me, depth - 1) for _, child in position.successors()]
    if not values:
        return material(position, me)
    return max(values) if position.side_to_move == me else min(values)


# --------------------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    "value,message",
    [
        (2, "search_depth must be an odd number of plies"),
        (0, "search_depth must be an odd number of plies"),
        (-3, "search_depth must be an odd number of plies"),
        (3.0, "search_depth must be int"),
        ("3", "search_depth must be int"),
        (True, "search_depth must be int"),
    ],
)
def test_search_depth_is_validated(value, message):
    with pytest.raises(TrainingError, match=message) as info:
        TrainingConfig(search_depth=value)
    assert "\n" not in str(info.value)


def test_search_depth_needs_a_game_that_searches():
    class NoSearch:
        n_inputs, encoding = 14, "abalearn3"

    with pytest.raises(TrainingError, match="NoSearch has no search_leaf"):
        Trainer(NoSearch(), TrainingConfig(search_depth=3))  # type: ignore[arg-type]
    assert TrainingConfig(search_depth=1).search_depth == 1 and TrainingConfig(search_depth=5).search_depth == 5


# --------------------------------------------------------------------------------- the leaves
def test_three_ply_leaf_sees_a_push_off_that_one_ply_misses():
    start = Position.from_string(SETUP)
    assert minimax_material(start, 1, 1) == 0 and minimax_material(start, 1, 3) == 1
    game = AbaloneLearningGame("abalearn3", start)
    assert not game.afterstates(Game(start)).gains.any()  # nothing to take at one ply
    net = ValueNetwork(14, 10, 0, metadata={"encoding": "abalearn3", "rewards": "marbles"})
    leaf = game.search_leaf(Game(start), net, 3)
    assert len(leaf.line) == 3 and leaf.move == leaf.line[0]
    assert leaf.line[2] & PUSH_OFF_BIT and leaf.material == 1.0 and not leaf.won
    end = start
    for code in leaf.line:
        end = end.play(Move(code, 3))
    assert end.lost == (0, 1) and end.side_to_move == 2  # a Black afterstate, a White marble off
    assert np.array_equal(leaf.inputs, encode_position("abalearn3", end, 1))
    # with a first move forced (ε's random move, the expert's move), the rest is searched after it
    forced = game.search_leaf(Game(start), net, 3, first=leaf.line[0])
    assert forced.line[0] == leaf.line[0] and forced.material == 1.0


def test_a_won_leaf_is_terminal_and_a_lost_line_is_cut_back():
    net = ValueNetwork(14, 10, 0, metadata={"encoding": "abalearn3", "rewards": "marbles"})
    # Black can push off White's second marble (the win on the mini board) at once
    start = Position.from_string("3/1w2/ww1bw/1bbb/2b b 0 1 8")
    leaf = AbaloneLearningGame("abalearn3", start).search_leaf(Game(start), net, 3)
    assert leaf.won and leaf.material == 2.0 and leaf.line == (leaf.move,) and leaf.move & PUSH_OFF_BIT
    # White to move cannot stop Black's winning push-off: the line stops at White's own move
    white = Position.from_string("b1w/w2b/1bw2/1bbw/3 w 0 1 10")
    assert minimax_material(white, 2, 1) == -1 and minimax_material(white, 2, 2) == -2
    leaf = AbaloneLearningGame("abalearn3", white).search_leaf(Game(white), net, 3)
    assert len(leaf.line) == 1 and not leaf.won and leaf.material == -1.0
    assert np.array_equal(leaf.inputs, encode_position("abalearn3", white.play(Move(leaf.move, 3)), 2))


def test_a_search_sees_the_current_weights_and_nothing_of_earlier_searches():
    """TD-Leaf changes the weights after every move: the same searcher must then search exactly
    as a fresh one with those weights would (no stale parameters, no stale table)."""
    start = Position.start("mini")
    game = AbaloneLearningGame("abalearn3", start)
    net = ValueNetwork(14, 10, 0, metadata={"encoding": "abalearn3", "rewards": "marbles"}, init_range=2.0)
    lines = set()
    for seed in range(4):
        net.theta[:] = np.random.default_rng(seed).uniform(-3, 3, net.theta.size)
        reused = game.search_leaf(Game(start), net, 3)
        fresh = AbaloneLearningGame("abalearn3", start).search_leaf(Game(start), net.copy(), 3)
        assert reused.line == fresh.line and np.array_equal(reused.inputs, fresh.inputs)
        lines.add(reused.line)
    assert len(lines) > 1  # the weights do steer the search


def record_steps(t: Trainer, side: int) -> list[tuple[float, bool, float | None]]:
    """Wrap one side's TD steps (the end of the game's terminal step included): (reward,
    terminal, next value) of each."""
    calls = []
    learner = t.learners[side]
    step = learner.step

    def wrapped(x, reward=0.0, x_next=None, terminal=False, *, next_value=None):
        calls.append((float(reward), bool(terminal), next_value))
        return step(x, reward, x_next, terminal, next_value=next_value)

    learner.step = wrapped
    return calls


def record_final(t: Trainer) -> list[Game]:
    """Keep the game's state after every move (the last one is the final position)."""
    states = []
    play = t.game.play

    def wrapped(state, move):
        states.append(play(state, move))
        return states[-1]

    t.game.play = wrapped
    return states


def test_training_leaves_are_learner_afterstates_and_rewards_are_material_changes():
    t = trainer(regime="self", search_depth=3, seed=2)
    log = record_leaves(t)
    steps = {side: record_steps(t, side) for side in (1, 2)}
    states = record_final(t)
    before = t.network.theta.copy()
    stats = t.play_game()
    assert not np.array_equal(before, t.network.theta)
    lengths = set()
    for position, first, leaf in log:
        me = position.side_to_move
        assert len(leaf.line) % 2 == 1 and (first is None or leaf.line[0] == first)
        end = position
        for code in leaf.line:
            move = Move(code, 3)
            assert end.is_legal(move)
            end = end.play(move)
        assert np.allclose(leaf.inputs, encode_position("abalearn3", end, me))
        assert leaf.material == material(end, me) and leaf.won == (end.winner() == me)
        lengths.add(len(leaf.line))
    assert 3 in lengths  # most leaves lie three plies deep
    # the rewards between a side's leaves telescope: the first leaf's material plus every reward
    # is the final material plus the result (or a won leaf's material plus 1: it ends the chain)
    final = states[-1].position
    for side in (1, 2):
        leaves = [leaf for position, _, leaf in log if position.side_to_move == side]
        rewards = [reward for reward, _, _ in steps[side]]
        won_at = next((i for i, leaf in enumerate(leaves) if leaf.won), None)
        if won_at is None:
            result = 1.0 if stats.winner == side else -1.0 if stats.winner == 3 - side else 0.0
            assert len(rewards) == len(leaves) and steps[side][-1][1]
            assert leaves[0].material + sum(rewards) == pytest.approx(material(final, side) + result)
        else:
            assert len(rewards) == won_at and steps[side][-1][1]
            assert leaves[0].material + sum(rewards) == pytest.approx(leaves[won_at].material + 1.0)


def test_td_leaf_targets_use_the_leaf_value_and_material():
    """From SETUP, Black's first leaf has taken a marble; the reward of its next step is the
    material change between its leaves and the next value the network's value of the new leaf
    (before the update); the game's end adds the change to the final position."""
    t = trainer(start=Position.from_string(SETUP), regime="self", epsilon=0.0, search_depth=3, max_plies=4)
    log = record_leaves(t)
    values = []
    steps = record_steps(t, 1)
    step = t.learners[1].step

    def with_value(*args, **kwargs):
        values.append(float(t.network.values(log[-1][2].inputs[None, :])[0]))
        return step(*args, **kwargs)

    t.learners[1].step = with_value
    states = record_final(t)
    t.play_game()
    black = [leaf for position, _, leaf in log if position.side_to_move == 1]
    assert black[0].material == 1.0 and len(black) == 2 and len(steps) == 2
    (reward, terminal, next_value), (last, last_terminal, _) = steps
    assert reward == black[1].material - black[0].material and not terminal
    assert next_value == pytest.approx(values[0])
    assert last_terminal and last == material(states[-1].position, 1) - black[1].material  # a draw: no result


# --------------------------------------------------------------------------------- runs
@pytest.mark.parametrize("td_mode", ["online", "offline"])
def test_td_leaf_resumes_exactly(tmp_path, td_mode):
    # TD-Leaf takes rewards of ±1 a marble (reward_scale is for one-ply training)
    options = dict(**{**METHOD_PRESETS["method-II"], "reward_scale": 1.0}, search_depth=3, seed=3, td_mode=td_mode,
                   max_plies=40)
    a = trainer(**options)
    for _ in range(4):
        a.play_game()
    b = trainer(**options)
    for _ in range(2):
        b.play_game()
    save_checkpoint(tmp_path / "c.npz", b)
    saved = load_checkpoint(tmp_path / "c.npz")
    assert saved["config"]["search_depth"] == 3
    c = trainer(**saved["config"])
    c.load_state_dict(saved["state"])
    for _ in range(2):
        c.play_game()
    assert c.games == a.games == 4
    assert np.array_equal(a.network.theta, c.network.theta)
    assert np.array_equal(a.learners[2].trace, c.learners[2].trace) and a.epsilon == c.epsilon
    d = trainer(**{**options, "search_depth": 1})
    for _ in range(4):
        d.play_game()
    assert not np.array_equal(a.network.theta, d.network.theta)  # the search changed the games
    if td_mode == "offline":
        assert a.learners[1].steps == 0


def test_observe_and_expert_regimes_search_after_the_experts_move():
    t = trainer(regime="observe", opponent="greedy", search_depth=3, epsilon=0.0)
    log = record_leaves(t)
    before = t.network.theta.copy()
    t.play_game()
    assert log and all(first is not None and leaf.line[0] == first for _, first, leaf in log)
    assert not np.array_equal(before, t.network.theta)


def test_td_leaf_against_random_learns_to_win(tmp_path):
    """A hundred TD-Leaf games against `random` make a 1-ply player that all but never loses to
    it; the untrained network of the same seed loses a few games in the same match."""
    from sumito.arena.executor import make_executor
    from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair

    def score(t: Trainer) -> tuple[int, int]:
        path = tmp_path / f"net-{t.games}.npz"
        t.network.save(path)
        settings = ArenaSettings.from_layout("mini", seed=2)
        tasks = schedule([f"td:net={path}", "random"], 200, settings)
        summary = summarize_pair([r for _, r in make_executor(1).run(play_game, tasks)])
        return summary.wins, summary.losses

    t = trainer(regime="opponent", opponent="random", search_depth=3, seed=1)
    _, untrained_losses = score(t)
    for _ in range(100):
        t.play_game()
    wins, losses = score(t)
    assert untrained_losses >= 5
    assert wins >= 195 and losses < untrained_losses
