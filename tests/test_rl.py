"""sumito.rl: the fixed action space, the array game the environments play, and the PettingZoo and
Gymnasium environments (their own checkers, rewards, illegal actions, seeding and rendering)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from sumito.engine import DrawRules, Game, Position
from sumito.rlcore.actions import action_space
from sumito.rlcore.core import ArrayGame, IllegalActionError

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


from sumito.engine import IllegalMoveError as IllegalMoveError_  # noqa: E402


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
    assert black.shape == (9, 9, 7) and black.dtype == np.float32
    assert black[..., 0].sum() == 14 and black[..., 1].sum() == 13 and white[..., 0].sum() == 13
    assert np.array_equal(black[..., 0], white[..., 1]) and np.array_equal(black[..., 2], white[..., 2])
    assert black[..., :3].sum() == 61  # every cell is exactly one of own, opponent, empty; the corners none
    assert black[0, 0, 0] == 1 and black[0, 5, :3].sum() == 0  # a1 is Black's; (a, 6) is off the board
    assert black[..., 3].min() == 1 and white[..., 3].max() == 0
    assert black[..., 4].max() == 0 and white[..., 4].min() == 1  # White to move
    assert white[0, 0, 5] == pytest.approx(1 / 6) and black[0, 0, 6] == pytest.approx(1 / 6)


def test_cloned_games_are_independent():
    fast = ArrayGame(Position.start("standard"))
    copy = fast.clone()
    fast.step(int(fast.legal_actions()[0]))
    assert copy.position() == Position.start("standard") and copy.plies == 0 and fast.plies == 1


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
    env = rl.abalone_env()
    env.reset(seed=1)
    before = env.unwrapped.position()
    illegal = int(np.flatnonzero(env.unwrapped.game.mask == 0)[0])
    for bad in (illegal, 99999, -3, "a1a2", 1.0):
        with pytest.raises(ValueError, match="action") as info:
            env.step(bad)
        assert "\n" not in str(info.value)
        assert env.unwrapped.position() == before and env.agent_selection == "black"
    assert isinstance(info.value, IllegalActionError)


def test_the_penalty_option_ends_the_game_against_the_offender():
    env = rl.abalone_env(illegal_action="penalty", illegal_reward=-2.0)
    env.reset()
    illegal = int(np.flatnonzero(env.unwrapped.game.mask == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards == {"black": -2.0, "white": 0.0} and env.infos["black"]["illegal_action"] == illegal


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
                   dict(opponent="random", color="random", layout="small", reward="marbles")):
        check_env(gymnasium.make("Sumito/Abalone-v0", **kwargs).unwrapped, skip_render_check=True)
    # the checker draws one action before a reset and plays it after; where that action is not legal
    # after the reset (here: Alphalone's replies on the mini board), "error" stops the checker with
    # the error, and under the penalty option the action is a forfeit and the checker passes
    env = rl.single_agent_env("alphalone", layout="mini", inline_only=True)
    with pytest.raises(ValueError, match="cannot be played"):
        check_env(env, skip_render_check=True)
    check_env(rl.single_agent_env("random", opening_plies=4, illegal_action="penalty"), skip_render_check=True)


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
    env = rl.single_agent_env("random", layout="mini")
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
