"""sumito.rl: the fixed action space, the array game the environments play, and the PettingZoo and
Gymnasium environments (their own checkers, rewards, illegal actions, seeding and rendering)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from sumito.games.abalone import DrawCounters, DrawRules, Game, Position
from sumito.games.abalone.geometry import geometry
from sumito.rlcore.actions import action_space
from sumito.rlcore.core import ArrayGame, IllegalActionError
from sumito.rlcore.symmetry import board_symmetries

LAYOUTS = ("standard", "belgian-daisy", "german-daisy", "small", "mini")


# ----------------------------------------------------------------------------- the action space
@pytest.mark.parametrize(("side", "inline", "broadside"), [(5, 312, 960), (4, 180, 504), (3, 84, 192)])
def test_the_action_space_has_one_action_per_notation(side, inline, broadside):
    space = action_space(side)
    assert (space.n_inline, space.n - space.n_inline) == (inline, broadside)
    assert len(set(space.notations)) == space.n
    assert all(space.from_notation(text) == a for a, text in enumerate(space.notations))
    assert not any(space.is_broadside(a) for a in range(space.n_inline))
    assert all(space.is_broadside(a) for a in range(space.n_inline, space.n))


def test_actions_and_legal_moves_map_one_to_one_along_random_games():
    rng = np.random.default_rng(5)
    for layout in LAYOUTS:
        game = Game(Position.start(layout), DrawRules(max_plies=80))
        space = action_space(game.position.variant.side)
        while not game.is_over():
            position = game.position
            moves = position.legal_moves()
            actions = [space.move_to_action(m) for m in moves]
            assert len(set(actions)) == len(moves)
            assert np.array_equal(np.flatnonzero(space.mask(position)), sorted(actions))
            for move, action in zip(moves, actions):
                assert space.action_to_move(action, position) == move
                assert space.notation(action) == move.notation()
            game.push(moves[rng.integers(len(moves))])


def test_an_action_that_is_not_legal_is_named_in_the_error():
    space = action_space(5)
    start = Position.start("standard")
    with pytest.raises(IllegalMoveError_, match=r"action 0 \(a1a2\) is not a legal move"):
        space.action_to_move(0, start)
    for bad in (-1, space.n, 2.5, "3", True):
        with pytest.raises(IllegalMoveError_, match="action"):
            space.action_to_move(bad, start)
    with pytest.raises(IllegalMoveError_, match="names no move"):
        space.from_notation("z9z8")
    # a broadside move written from its other end is the same action
    assert space.from_notation("e8e6f8") == space.from_notation("e6e8f6")


from sumito.games.abalone import IllegalMoveError as IllegalMoveError_  # noqa: E402


# ----------------------------------------------------------------------------- the array game
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("inline_only", [False, True])
def test_the_array_game_is_the_engines_game_move_for_move(layout, inline_only):
    rng = np.random.default_rng(11)
    start = Position.start(layout, inline_only=inline_only)
    rules = DrawRules(max_plies=150, repetitions=3, no_capture_plies=60)
    for _ in range(3):
        fast, game = ArrayGame(start, rules), Game(start, rules)
        while not fast.is_over:
            legal = fast.legal_actions()
            assert len(legal) == len(game.legal_moves())
            action = int(legal[rng.integers(len(legal))])
            move = game.push(fast.space.action_to_move(action, game.position))
            pushed = fast.step(action)
            assert pushed == int(move.is_push_off)
            assert fast.position() == game.position and fast.hash == game.position.zobrist
        assert fast.outcome == game.outcome() and not fast.legal_actions().size
        assert fast.truncated == (fast.outcome.reason == "ply-cap")


def test_a_won_game_ends_and_is_not_truncated():
    # Black's c3, d4 push White's e5 off the mini board: White's second marble lost, of 2 to win
    fast = ArrayGame(Position.from_string("2w/2b1/2b2/4/3 b 0 1 1"))
    wins = [a for a in fast.legal_actions() if fast.clone().step(int(a))]
    assert [fast.space.notation(int(a)) for a in wins] == ["c3d4"]
    fast.step(int(wins[0]))
    assert fast.outcome.winner == 1 and fast.outcome.reason == "push-off" and not fast.truncated
    with pytest.raises(IllegalActionError, match="the game is over"):
        fast.step(int(wins[0]))


def test_observation_planes_show_the_board_from_the_observers_side():
    position = Position.from_string("ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1w1 w 0 1 5")
    fast = ArrayGame(Position.start("belgian-daisy"))
    fast.reset(position)
    black, white = fast.observe(1), fast.observe(2)
    assert black.shape == (9, 9, 10) and black.dtype == np.float32
    assert black[..., 0].sum() == 14 and black[..., 1].sum() == 13 and white[..., 0].sum() == 13
    assert np.array_equal(black[..., 0], white[..., 1]) and np.array_equal(black[..., 2], white[..., 2])
    assert black[..., :3].sum() == 61  # every cell is exactly one of own, opponent, empty; the corners none
    assert black[0, 0, 0] == 1 and black[0, 5, :3].sum() == 0  # a1 is Black's; (a, 6) is off the board
    assert black[..., 3].min() == 1 and white[..., 3].max() == 0
    assert black[..., 4].max() == 0 and white[..., 4].min() == 1  # White to move
    assert white[0, 0, 5] == pytest.approx(1 / 6) and black[0, 0, 6] == pytest.approx(1 / 6)
    # a fresh game: the position's first occurrence, every ply of the cap left, no no-push-off rule
    assert black[..., 7].max() == 0 and black[..., 8].min() == 1 and black[..., 9].min() == 1


SHUFFLE = ("a1b1", "e5d5", "b1a1", "d5e5")  # on the mini board: a black and a white marble to and fro


def test_the_planes_show_the_repetition_count_and_the_plies_left_to_the_draws():
    rules = DrawRules(max_plies=40, repetitions=3, no_capture_plies=10)
    fast = ArrayGame(Position.start("mini"), rules)
    space = fast.space
    seen = []
    for notation in SHUFFLE * 2:
        planes = fast.observe(1)
        seen.append((planes[0, 0, 7], planes[2, 2, 8], planes[4, 4, 9]))
        fast.step(space.from_notation(notation))
    # from the fifth ply each position occurs a second time (half way to the drawing third); the plies
    # left fall by 1/40 and 1/10 a ply (no marble is pushed off)
    assert [r for r, _, _ in seen] == [0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5]
    assert [p for _, p, _ in seen] == pytest.approx([(40 - i) / 40 for i in range(8)])
    assert [q for _, _, q in seen] == pytest.approx([(10 - i) / 10 for i in range(8)])
    assert fast.outcome.reason == "repetition" and fast.observe(2)[0, 0, 7] == 1
    # the board alone is the same at plies 0 and 4: only the new planes tell the two apart
    again = ArrayGame(Position.start("mini"), rules)
    for notation in SHUFFLE:
        again.step(space.from_notation(notation))
    start = ArrayGame(Position.start("mini"), rules)
    assert np.array_equal(again.observe(1)[..., :7], start.observe(1)[..., :7])
    assert not np.array_equal(again.observe(1), start.observe(1))
    # with the rules off, the planes say so: no repetition counted, all the plies left
    free = ArrayGame(Position.start("mini"), DrawRules(max_plies=None, repetitions=None))
    for notation in SHUFFLE:
        free.step(space.from_notation(notation))
    assert free.observe(1)[..., 7].max() == 0 and free.observe(1)[..., 8:].min() == 1


def test_a_player_sees_the_environments_planes_from_the_history_and_draw_counters():
    rules = DrawRules(max_plies=40, repetitions=3)
    fast = ArrayGame(Position.start("mini"), rules)
    hashes = []
    for notation in SHUFFLE:
        hashes.append(fast.hash)
        fast.step(fast.space.from_notation(notation))
    player = ArrayGame(Position.start("mini"), rules)
    player.reset(fast.position(), history=hashes, draw=DrawCounters(rules, fast.plies, fast.quiet))
    assert np.array_equal(player.observe(1), fast.observe(1)) and player.observe(1)[0, 0, 7] == 0.5


def test_undo_takes_back_every_ply_to_the_start():
    rng = np.random.default_rng(9)
    for layout in ("belgian-daisy", "mini"):
        fast = ArrayGame(Position.start(layout), DrawRules(max_plies=120, repetitions=3, no_capture_plies=50))
        trail = []
        while not fast.is_over:
            trail.append((fast.position(), fast.hash, fast.mask.copy(), fast.observe(1), fast.outcome,
                          fast.seen.copy()))
            legal = fast.legal_actions()
            fast.step(int(legal[rng.integers(len(legal))]))
        assert fast.outcome.reason != "ply-cap" or layout == "belgian-daisy"
        for position, h, mask, planes, outcome, seen in reversed(trail):
            fast.undo()
            assert fast.position() == position and fast.hash == h and fast.outcome == outcome
            assert np.array_equal(fast.mask, mask) and np.array_equal(fast.observe(1), planes) and fast.seen == seen
        with pytest.raises(IllegalActionError, match="no action to take back"):
            fast.undo()


def test_cloned_games_are_independent():
    fast = ArrayGame(Position.start("standard"))
    copy = fast.clone()
    fast.step(int(fast.legal_actions()[0]))
    assert copy.position() == Position.start("standard") and copy.plies == 0 and fast.plies == 1


# ----------------------------------------------------------------------------- symmetries
@pytest.mark.parametrize("layout", ["belgian-daisy", "small", "mini"])
def test_the_twelve_symmetries_commute_with_the_rules(layout):
    start = Position.start(layout)
    sym = board_symmetries(start.variant.side)
    assert len(sym) == 12 and sym.action(7, 0) == 7
    assert len({tuple(row) for row in sym.action_map.tolist()}) == 12  # twelve different maps of the actions
    rng = np.random.default_rng(len(layout))
    game = ArrayGame(start, DrawRules(max_plies=None))
    positions = []
    for _ in range(6):  # random positions along one random game
        for _ in range(int(rng.integers(1, 12))):
            if game.is_over:
                game.reset()
            game.step(int(rng.choice(game.legal_actions())))
        if not game.is_over:
            positions.append(game.position())
    image = ArrayGame(start, DrawRules(max_plies=None))
    for position in positions:
        game.reset(position)
        action = int(rng.choice(game.legal_actions()))
        after = game.clone()
        after.step(action)
        for k in range(12):
            image.reset(sym.position(position, k))
            # legal_actions(g(position)) == g(legal_actions(position)), as masks and as sorted lists
            assert np.array_equal(image.mask, sym.actions(game.mask, k))
            assert sorted(sym.action(int(a), k) for a in game.legal_actions()) == image.legal_actions().tolist()
            assert np.array_equal(image.observe(1), sym.observation(game.observe(1), k))
            # g(action) played in g(position) gives g(position after action)
            image.step(sym.action(action, k))
            assert image.position() == sym.position(after.position(), k)
            assert sym.action(sym.action(action, k), sym.inverse(k)) == action
    batch = np.stack([game.observe(1), game.observe(2)])  # a batch of observations moves as one
    assert np.array_equal(sym.observation(batch, 4)[1], sym.observation(game.observe(2), 4))
    with pytest.raises(ValueError, match="observation planes of the side"):
        sym.observation(np.zeros((3, 3, 10), np.float32), 1)


def test_the_nnue_trainer_and_the_environments_share_one_set_of_symmetries():
    from sumito.evaluation import nnue
    from sumito.games.abalone.geometry import symmetries

    assert nnue.symmetries is symmetries
    assert np.array_equal(board_symmetries(5).grid[:, geometry(5).cells], geometry(5).cells[symmetries(5)])


# ----------------------------------------------------------------------------- PettingZoo
pettingzoo = pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: pip install 'sumito[rl]'")
gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed: pip install 'sumito[rl]'")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import sumito.rl as rl  # noqa: E402


def random_game(env, rng) -> list[tuple[str, float]]:
    """Play ``env`` (already reset) to the end with random legal actions; every (agent, reward) seen."""
    seen = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen.append((agent, reward))
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return seen


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_aec_environment_passes_pettingzoos_api_and_seed_tests():
    api_test(rl.abalone_env(), num_cycles=300)
    api_test(rl.abalone_env("mini", inline_only=True, reward="marbles", max_plies=40), num_cycles=300)
    seed_test(lambda: rl.abalone_env("small", opening_plies=4), num_cycles=200)


def test_results_and_marble_rewards_add_up():
    rng = np.random.default_rng(3)
    for reward in ("result", "marbles"):
        env = rl.abalone_env("mini", reward=reward, max_plies=300)
        for seed in range(6):
            env.reset(seed=seed)
            totals = dict.fromkeys(rl.pettingzoo_env.AGENTS, 0.0)
            for agent, r in random_game(env, rng):
                totals[agent] += r
            position = env.unwrapped.position()
            outcome = env.unwrapped.game.outcome
            assert totals["black"] == -totals["white"]
            if reward == "result":
                expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == 1 else -1.0)
            else:
                expected = float(position.lost[1] - position.lost[0])
            assert totals["black"] == expected


def test_the_ply_cap_truncates_and_a_repetition_terminates():
    env = rl.abalone_env("standard", max_plies=6)
    env.reset(seed=0)
    random_game(env, np.random.default_rng(0))
    assert env.unwrapped.game.plies == 6 and env.unwrapped.game.truncated
    # a black and a white marble shuffling to and fro: the third occurrence is a drawn termination
    env = rl.abalone_env("mini", max_plies=None)
    env.reset()
    space = rl.action_space(3)
    for notation in ("a1b1", "e5d5", "b1a1", "d5e5", "a1b1", "e5d5", "b1a1", "d5e5"):
        agent = env.agent_selection
        assert not env.terminations[agent]
        env.step(space.from_notation(notation))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos["black"]["outcome"] == "repetition" and env.infos["black"]["winner"] is None


def test_an_illegal_action_raises_naming_it_and_leaves_the_game_alone():
    for illegal_action in ("error", "penalty"):  # what is no action of the space raises under either option
        env = rl.abalone_env(illegal_action=illegal_action)
        env.reset(seed=1)
        before = env.unwrapped.position()
        illegal = int(np.flatnonzero(env.unwrapped.game.mask == 0)[0])
        for bad in (illegal, 99999, -3, "a1a2", 1.0) if illegal_action == "error" else (99999, -3, "a1a2", 1.0):
            with pytest.raises(ValueError, match="action") as info:
                env.step(bad)
            assert "\n" not in str(info.value)
            assert env.unwrapped.position() == before and env.agent_selection == "black"
        assert isinstance(info.value, IllegalActionError)


def test_an_illegal_action_ends_the_game_against_the_offender_by_default():
    env = rl.abalone_env(illegal_reward=-2.0)  # PettingZoo's classic games' TerminateIllegalWrapper
    env.reset()
    before = env.unwrapped.position()
    env.step(int(np.flatnonzero(env.unwrapped.game.mask)[0]))  # Black plays a legal move
    illegal = np.int64(np.flatnonzero(env.unwrapped.game.mask == 0)[0])
    after = env.unwrapped.position()
    env.step(illegal)  # White does not
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"black": 0.0, "white": -2.0} and env.infos["white"]["illegal_action"] == illegal
    assert env.infos["black"]["outcome"] == "illegal-action" and env.infos["black"]["winner"] == "black"
    assert env.unwrapped.position() == after != before


def test_the_aec_environment_is_not_parallelizable_as_pettingzoos_turn_based_games():
    from pettingzoo.utils.conversions import aec_to_parallel

    assert rl.abalone_env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(rl.abalone_env())


def test_reset_can_start_from_a_position_and_bad_options_are_one_line_errors():
    env = rl.abalone_env()
    env.reset(options={"position": "ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1w1 w 0 1 5"})
    assert env.agent_selection == "white" and env.unwrapped.position().lost == (0, 1)
    for kwargs, what in [
        (dict(layout="nowhere"), "layout"),
        (dict(max_plies=0), "max_plies"),
        (dict(win=99), "win"),
        (dict(reward="points"), "reward"),
        (dict(illegal_action="ignore"), "illegal_action"),
        (dict(render_mode="svg"), "render_mode"),
        (dict(opening_plies=10**9), "opening_plies"),
        (dict(repetitions=1), "repetitions"),
    ]:
        with pytest.raises(ValueError, match=what) as info:
            rl.abalone_env(**kwargs)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="position"):
        env.reset(options={"position": "w/ww b 0 0 1"})


def test_render_modes():
    env = rl.abalone_env("mini", render_mode="ansi")
    env.reset()
    assert "Black to move" in env.render()
    image = rl.abalone_env("mini", render_mode="rgb_array")
    image.reset()
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.shape == (480, 480, 3) and frame.std() > 10


# ----------------------------------------------------------------------------- Gymnasium
def test_the_single_agent_environment_passes_gymnasiums_checker():
    from gymnasium.utils.env_checker import check_env

    for kwargs in (dict(), dict(opponent="random", layout="mini"), dict(opponent="greedy", color="white"),
                   dict(opponent="random", color="random", layout="small", reward="marbles"),
                   dict(opponent="random", opening_plies=4),
                   dict(opponent="alphalone", layout="mini", inline_only=True)):
        check_env(gymnasium.make("Sumito/Abalone-v0", **kwargs).unwrapped, skip_render_check=True)
    # the checker plays uniformly sampled actions, nearly all illegal: "error" stops it with the error
    with pytest.raises(ValueError, match="cannot be played"):
        check_env(rl.single_agent_env("random", layout="mini", illegal_action="error"), skip_render_check=True)


def test_the_action_space_is_gymnasiums_discrete_sampled_uniformly_or_with_the_mask():
    env = gymnasium.make("Sumito/Abalone-v0", opponent="random", layout="mini")
    obs, _ = env.reset(seed=3)
    assert type(env.action_space) is gymnasium.spaces.Discrete and env.action_space.n == 276
    env.action_space.seed(3)
    drawn = [int(env.action_space.sample()) for _ in range(300)]
    assert len(set(drawn)) > 150  # uniform over all 276 actions, not the 14 legal ones
    assert not all(obs["action_mask"][a] for a in drawn)
    for _ in range(20):
        action = env.action_space.sample(mask=obs["action_mask"])
        assert obs["action_mask"][action] == 1
        obs, _, terminated, truncated, info = env.step(action)
        assert info.get("outcome") != "illegal-action"
        if terminated or truncated:
            obs, _ = env.reset()


def test_an_illegal_action_loses_the_game_for_the_agent_by_default():
    env = rl.single_agent_env("random", layout="mini")
    obs, _ = env.reset(seed=0)
    before = env.position()
    illegal = np.int64(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["outcome"] == "illegal-action" and info["illegal_action"] == illegal and info["winner"] == "white"
    assert env.position() == before and not obs["action_mask"].any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    for bad in (-1, 276, "a1a2", 2.0):  # not actions of the space at all: an error, whatever the option
        with pytest.raises(IllegalActionError, match="not one of the side-3 board's actions"):
            env.step(bad)
    assert env.position() == before


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_vector_environment_of_uniformly_random_actions_runs():
    envs = gymnasium.make_vec("Sumito/Abalone-v0", num_envs=3, vectorization_mode="sync", opponent="random",
                              layout="mini", color="random")
    obs, _ = envs.reset(seed=5)
    envs.action_space.seed(5)
    assert obs["observation"].shape == (3, 5, 5, 10) and obs["action_mask"].shape == (3, 276)
    outcomes = []
    for step in range(400):
        if step < 200:
            actions = envs.action_space.sample()
        else:  # and the legal ones, each drawn with its environment's mask
            actions = np.array([envs.single_action_space.sample(mask=mask) for mask in obs["action_mask"]])
        obs, rewards, terminated, _, info = envs.step(actions)
        if "outcome" in info:
            ended = info["_outcome"]
            outcomes += info["outcome"][ended].tolist()
            lost = ended & (info["outcome"] == "illegal-action")
            assert (rewards[lost] == -1).all() and terminated[lost].all()
    assert outcomes.count("illegal-action") > 100 and "push-off" in outcomes
    envs.close()


class FirstLegal:
    """A policy object: the first legal action of the opponent's own observation."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, str]] = []

    def __call__(self, observation: dict, info: dict) -> int:
        self.seen.append((float(observation["observation"][0, 0, 3]), info["color"]))
        return int(np.flatnonzero(observation["action_mask"])[0])


class Choosy:
    """An object with the player's method, not one of Sumito's players."""

    name = "choosy"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def choose(self, position, movetime=None, history=None, draw=None):
        self.calls.append((len(history), draw.plies))
        return position.legal_moves()[-1]


def test_opponents_are_specs_players_objects_with_choose_or_policies():
    from sumito.players import make_player

    policy = FirstLegal()
    for opponent in ("greedy", make_player("greedy"), Choosy(), policy, lambda obs, info: policy(obs, info)):
        env = gymnasium.make("Sumito/Abalone-v0", opponent=opponent, layout="mini", color="white")
        obs, info = env.reset(seed=1)
        assert env.unwrapped.game.plies == 1 and info["color"] == "white"  # the opponent, Black, has moved
        for _ in range(3):
            obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.unwrapped.game.plies == 7
    # the policy saw Black's planes (plane 3 on), as the agent sees its own
    assert policy.seen[:2] == [(1.0, "black"), (1.0, "black")]
    choosy = Choosy()
    env = rl.single_agent_env(choosy, layout="mini")
    obs, _ = env.reset()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert choosy.calls == [(1, 1)]  # the game's earlier position and the ply counters, as in the arena
    for bad in (42, None, ["random"]):
        with pytest.raises(ValueError, match="opponent must be a player spec string") as info:
            rl.single_agent_env(bad)
        assert "\n" not in str(info.value)
    env = rl.single_agent_env(lambda obs, info: 0, layout="mini", color="white")
    with pytest.raises(IllegalActionError, match=r"the opponent's action 0 \(a1a2\) cannot be played"):
        env.reset()


def test_gymnasium_make_by_module_and_id_and_the_same_seed_gives_the_same_game():
    env = gymnasium.make("sumito.rl:Sumito/Abalone-v0", opponent="heuristic:ties=random", layout="mini",
                         color="random", opening_plies=2, reward="marbles")

    def play(seed: int) -> list:
        obs, info = env.reset(seed=seed)
        trace, rng = [info["color"]], np.random.default_rng(seed)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
            trace.append((env.unwrapped.position().to_string(), reward))
            done = terminated or truncated
        return trace

    assert play(4) == play(4)
    assert play(4) != play(5)


def test_the_agent_gets_its_rewards_and_the_opponent_moves_first_as_black():
    env = rl.single_agent_env("greedy", color="white", layout="mini", reward="marbles")
    obs, info = env.reset(seed=0)
    assert info["color"] == "white" and env.unwrapped.game.plies == 1  # greedy (Black) has moved
    assert obs["observation"][..., 3].max() == 0  # the observer is White
    rng, total, done = np.random.default_rng(0), 0.0, False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        total += reward
        done = terminated or truncated
    lost = env.position().lost
    assert total == lost[0] - lost[1]  # White's marble difference
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


def test_an_illegal_gym_action_is_a_value_error_and_a_bad_opponent_a_spec_error():
    env = rl.single_agent_env("random", layout="mini", illegal_action="error")
    env.reset(seed=0)
    before = env.position()
    with pytest.raises(ValueError, match=r"action 0 \(a1a2\) cannot be played"):
        env.step(0)
    assert env.position() == before
    with pytest.raises(Exception, match="unknown player"):
        rl.single_agent_env("grandmaster")
    with pytest.raises(ValueError, match="color"):
        rl.single_agent_env("random", color="green")


# ----------------------------------------------------------------------------- without the extra
def test_sumito_imports_without_the_rl_libraries_and_says_how_to_get_them():
    script = (
        "import sys\n"
        "for name in ('pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel'): sys.modules[name] = None\n"
        "import sumito, sumito.rl\n"
        "from sumito.rl import action_space\n"
        "assert action_space(5).n == 1272\n"
        "try:\n"
        "    sumito.rl.abalone_env\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"sumito\.rl\.abalone_env needs PettingZoo \((gymnasium|pettingzoo) is not installed\): "
                        r"pip install 'sumito\[rl\]'", out.stdout.strip())
