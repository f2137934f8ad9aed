"""Distributed self-play training (sumito.learn.actors): one actor publishing every game is the sequential
trainer bit for bit (Abalone self-play, TD-Leaf, backgammon); several actors play every game once; a dead
actor's game is dropped, played again and counted once; checkpoints resume."""

from __future__ import annotations

import functools
import json
import logging
import os
import sys

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'sumito[ray]'")

from sumito.learn.abalone_game import make_trainer  # noqa: E402
from sumito.learn.actors import AbaloneLearner, ActorLearner, ActorLearnerError, train_with_actors  # noqa: E402
from sumito.learn.backgammon.actors import ActorBackgammonRun  # noqa: E402
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig, TrainingInterrupted  # noqa: E402
from sumito.learn.run import load_checkpoint, save_checkpoint  # noqa: E402
from sumito.learn.training import Trainer, TrainingConfig  # noqa: E402
from sumito.models.backgammon.modular import ModularValue  # noqa: E402

from helpers import start_local_ray  # noqa: E402

MINI = dict(layout="mini", max_plies=40, repetitions=20, seed=3)


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        start_local_ray(ray, num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
                        configure_logging=True)
    # the crashing factory below travels to the actors by value (the workers cannot import this test module)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield ray
    ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    if started:
        ray.shutdown()


def config(**changes) -> TrainingConfig:
    return TrainingConfig(**{**MINI, **changes})


def sequential(cfg: TrainingConfig, games: int) -> Trainer:
    t = make_trainer(cfg)
    for _ in range(games):
        t.play_game()
    return t


def assert_same_trainer(a: Trainer, b: Trainer) -> None:
    assert a.games == b.games and a.epsilon == b.epsilon
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    np.testing.assert_array_equal(a.network.theta, b.network.theta)
    for side in (1, 2):
        np.testing.assert_array_equal(a.learners[side].trace, b.learners[side].trace)
        la, lb = a.learners[side], b.learners[side]
        assert (la.steps, la.episodes) == (lb.steps, lb.episodes)


def crashing_factory(marker: str, at_game: int, cfg: TrainingConfig) -> Trainer:
    """A trainer whose process dies in the middle of game ``at_game`` the first time (``marker`` remembers)."""
    t = make_trainer(cfg)
    play = t.play_game

    def play_game():
        if t.games == at_game and not os.path.exists(marker):
            game = t.game.start(t.rng)  # some of the game is under way: the actor's generator has moved
            t.game.afterstates(game)
            open(marker, "w").close()
            os._exit(1)
        return play()

    t.play_game = play_game
    return t


@pytest.mark.parametrize("changes, games", [({}, 4), ({"search_depth": 3, "max_plies": 20}, 3)],
                         ids=["self-play", "td-leaf"])
def test_one_actor_publishing_every_game_is_the_sequential_trainer(local_ray, changes, games):
    cfg = config(**changes)
    straight = sequential(cfg, games)
    t = make_trainer(cfg)
    seen = []
    report = train_with_actors(t, games, actors=1, publish_every=1, on_game=seen.append)
    assert_same_trainer(straight, t)
    assert len(seen) == games and report.games == games and report.staleness == {0: games}
    assert report.published == games


def test_a_dead_actors_game_is_dropped_replayed_and_counted_once(local_ray, tmp_path):
    """One actor dies in the middle of game 2: a new one plays game 2 again from the same job, and the run is
    still the sequential run exactly (so nothing of the dropped game was applied, and nothing twice)."""
    cfg = config()
    straight = sequential(cfg, 5)
    t = make_trainer(cfg)
    factory = functools.partial(crashing_factory, str(tmp_path / "crashed"), 2)
    with ActorLearner(AbaloneLearner(t, factory), actors=1, publish_every=1, limit=5) as pool:
        while t.games < 5:
            pool.play_game()
        assert pool.report.replaced == 1 and pool.report.games == 5
        assert all(pool.applied(g) for g in range(5)) and not pool.applied(5)
    assert (tmp_path / "crashed").exists()
    assert_same_trainer(straight, t)


def test_two_actors_play_every_game_once_and_survive_a_kill(local_ray):
    t = make_trainer(config())
    with ActorLearner(AbaloneLearner(t), actors=2, publish_every=2, limit=10) as pool:
        killed = None
        while t.games < 10:
            pool.play_game()
            assert pool.in_flight <= 2
            if t.games == 3:
                killed = pool.slots[0]
                ray.kill(killed.handle)  # mid-game, most likely: its game is dropped and played again
        report = pool.report
        assert report.replaced == 1 and killed not in pool.slots and len(pool.slots) == 2
        assert all(pool.applied(g) for g in range(10)) and pool.in_flight == 0
        with pytest.raises(ActorLearnerError, match="no game left"):
            pool.play_game()
    assert t.games == 10 and report.games == 10 and sum(report.staleness.values()) == 10 and min(report.staleness) >= 0
    assert t.network.metadata["games"] == 10


def test_checkpoint_resume_continues_the_run(local_ray, tmp_path):
    """Interrupted from the callback after game 3 (the sequential loop saves its checkpoint there), then resumed
    from the checkpoint file: with one actor the whole is the sequential run."""
    cfg = config()
    straight = sequential(cfg, 6)
    t = make_trainer(cfg)
    path = tmp_path / "checkpoint.npz"

    def stop_at_3(stats):
        save_checkpoint(path, t)
        if t.games == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_with_actors(t, 6, actors=1, on_game=stop_at_3)
    saved = load_checkpoint(path)
    resumed = make_trainer(TrainingConfig(**saved["config"]))
    resumed.load_state_dict(saved["state"])
    assert resumed.games == 3
    report = train_with_actors(resumed, 6, actors=1)
    assert report.games == 3
    assert_same_trainer(straight, resumed)


def bg_config(**changes) -> BackgammonRunConfig:
    settings = dict(encoding="tesauro198", outputs=1, alpha=0.1, games=12, test_every=6, test_games=4,
                    test_against=("pubeval",), seed=4)
    settings.update(changes)
    return BackgammonRunConfig(**settings)


def networks(folder):
    return [net.theta for net in ModularValue.load(folder / "network.npz").networks]


def test_backgammon_one_actor_is_the_sequential_run_and_two_actors_resume(local_ray, tmp_path):
    straight = BackgammonRun(tmp_path / "seq", bg_config()).run()
    one = ActorBackgammonRun(tmp_path / "one", bg_config(), actors=1, publish_every=1)
    rows = one.run()
    drop = "train_seconds"
    assert [{k: v for k, v in r.items() if k != drop} for r in rows] == \
        [{k: v for k, v in r.items() if k != drop} for r in straight]
    for a, b in zip(networks(tmp_path / "seq"), networks(tmp_path / "one")):
        np.testing.assert_array_equal(a, b)
    assert one.report.games == 12 and one.report.staleness == {0: 12}

    def ctrl_c_at_first_test(row):
        raise KeyboardInterrupt

    two = ActorBackgammonRun(tmp_path / "two", bg_config(), actors=2, publish_every=3)
    with pytest.raises(TrainingInterrupted):
        two.run(progress=ctrl_c_at_first_test)  # 6 games trained, their test made again on resume
    assert two.pool is None and two.report.games == 6
    resumed = ActorBackgammonRun(tmp_path / "two", resume=True, actors=2, publish_every=3)
    rows = resumed.run()
    assert [int(r["games"]) for r in rows] == [6, 12] and resumed.report.games == 6
    state = json.loads(str(np.load(tmp_path / "two" / "checkpoint.npz")["trainer"]))
    assert state["games"] == 12


def test_bad_settings_are_refused():
    t = make_trainer(config())
    with pytest.raises(ActorLearnerError, match="--actors"):
        ActorLearner(AbaloneLearner(t), actors=0)
    with pytest.raises(ActorLearnerError, match="--publish-every"):
        ActorLearner(AbaloneLearner(t), actors=2, publish_every=0)
    with pytest.raises(ActorLearnerError, match="adapter"):
        train_with_actors(object(), 1, actors=1)
