"""Distributed backgammon training (``sumito bg train --actors N``): the actor–learner loop of
:mod:`sumito.learn.actors` for Wiering's modular network.

:class:`~sumito.models.backgammon.modular.ModularTrainer` learns offline, after the game, so an actor needs
no recording: it plays a game with the published weights (greedy one-ply play, or the expert's moves) by
:meth:`~sumito.models.backgammon.modular.ModularTrainer.generate_game` and returns the game's afterstates
(``int8 [T + 1, 28]``) and result; the learner applies them with
:meth:`~sumito.models.backgammon.modular.ModularTrainer.learn_game` to its current weights — the λ-returns
are computed there, from the learner's own current values (or the expert's evaluations, which only the
learner needs) — and counts the game as ``play_game`` does. With one actor the dice come from the learner's
own generator (handed over and taken back), so ``--actors 1 --publish-every 1`` is the sequential run bit for
bit; with more, game ``g``'s dice come from ``SeedSequence(seed, spawn_key=(0xAC7, g))``.

The expert or opponent (``regime`` ``expert`` / ``observe``) is built in each actor from its spec; actor 0
seeds it as the sequential run does (with the run's seed), the others from the seed and their number, so a
chooser that draws random numbers does not repeat one actor's choices in another.

:class:`ActorBackgammonRun` is a :class:`~sumito.learn.backgammon.run.BackgammonRun` whose trainer's
``play_game`` takes the next game from the actors: tests, checkpoints (the same file), the best network,
Ctrl-C and resume are ``BackgammonRun``'s own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sumito.games.backgammon.board import BackgammonPosition
from sumito.learn.actors import ACTOR_SEED_KEY, ActorLearner, ActorReport, game_generator_state
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig
from sumito.models.backgammon.modular import ModularTrainer, ModularValue

#: ``choosers(actor_id) -> {"opponent": chooser} | {"observe": chooser} | {}``, called in each actor
Choosers = Callable[[int], dict[str, Any]]


class BackgammonActor:
    """The actor side: a model of the learner's shape and a trainer that only generates games."""

    def __init__(self, actor_id: int, model: dict[str, Any], start: list[int], choosers: Choosers | None) -> None:
        self.model = ModularValue(0, hidden=tuple(model["hidden"]), encoding=model["encoding"],
                                  outputs=int(model["outputs"]))
        self.trainer = ModularTrainer(self.model, 0, start=BackgammonPosition(np.array(start, dtype=np.int8)),
                                      **(choosers(actor_id) if choosers is not None else {}))

    def play(self, weights: list[np.ndarray], job: dict[str, Any]) -> dict[str, Any]:
        for net, w in zip(self.model.networks, weights):
            np.copyto(net.theta, w)
        self.trainer.rng.bit_generator.state = job["rng"]
        chain, result = self.trainer.generate_game()
        return {"chain": chain, "result": int(result), "rng": self.trainer.rng.bit_generator.state}


class BackgammonLearner:
    """The learner side for a :class:`ModularTrainer` (a :class:`~sumito.learn.actors.LearnerAdapter`).

    ``seed``: the run's seed, for the games' own dice with two actors or more; ``choosers``: builds the
    expert or opponent in each actor (None: self-play)."""

    def __init__(self, trainer: ModularTrainer, seed: int, choosers: Choosers | None = None) -> None:
        if (trainer.opponent is not None or trainer.observe is not None) and choosers is None:
            raise ValueError("a trainer that plays or observes a chooser needs `choosers` to build it in the actors")
        self.trainer = trainer
        self.seed = int(seed)
        self.choosers = choosers

    @property
    def games(self) -> int:
        return self.trainer.games

    def weights(self) -> list[np.ndarray]:
        return [net.theta.copy() for net in self.trainer.model.networks]

    def job(self, number: int, stream: bool) -> dict[str, Any]:
        return {"rng": self.trainer.rng.bit_generator.state if stream else game_generator_state(self.seed, number)}

    def apply(self, trajectory: dict[str, Any], fresh: bool, stream: bool) -> int:
        t = self.trainer
        chain = np.array(trajectory["chain"], dtype=np.int8)  # a writable copy: the kernels' usual type
        result = int(trajectory["result"])
        # ModularTrainer.play_game after generate_game
        t.abandoned += result == 0
        t.learn_game(chain, result)
        t.games += 1
        if stream:
            t.rng.bit_generator.state = trajectory["rng"]
        return result

    def recipe(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        model = self.trainer.model
        spec = {"hidden": [net.n_hidden for net in model.networks], "encoding": model.encoding,
                "outputs": model.n_outputs}
        return BackgammonActor, (spec, self.trainer.start_board.tolist(), self.choosers)


def run_choosers(regime: str, spec: str, seed: int, make_player: Callable[..., Any], actor_id: int) -> dict[str, Any]:
    """The expert a :class:`BackgammonRun` of ``regime`` plays or observes, built in actor ``actor_id`` (module
    notes)."""
    if regime == "self":
        return {}
    rng_seed = seed if actor_id == 0 else int(np.random.SeedSequence([seed, ACTOR_SEED_KEY, actor_id])
                                                  .generate_state(1)[0])
    expert = make_player(spec, rng_seed=rng_seed)
    expert = getattr(expert, "engine", expert)  # as BackgammonRun.run does
    return {"opponent": expert} if regime == "expert" else {"observe": expert}


class ActorBackgammonRun(BackgammonRun):
    """A :class:`BackgammonRun` trained by ``actors`` Ray actors, weights published every ``publish_every`` games
    (``address``: a Ray cluster; ``cpus_per_actor``: see :class:`~sumito.learn.actors.ActorLearner`).
    ``report`` holds the last run's :class:`~sumito.learn.actors.ActorReport`."""

    def __init__(self, folder: str | Path, config: BackgammonRunConfig | None = None, *, actors: int,
                 publish_every: int = 1, address: str | None = None, cpus_per_actor: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(folder, config, **kwargs)
        self.actors = actors
        self.publish_every = publish_every
        self.address = address
        self.cpus_per_actor = cpus_per_actor
        self.pool: ActorLearner | None = None
        self.report: ActorReport | None = None

    def _trainer(self, expert: Any) -> tuple[ModularTrainer, dict[str, Any]]:
        trainer, extra = super()._trainer(expert)
        c = self.config
        choosers = functools.partial(run_choosers, c.regime, c.expert, c.seed, self.make_player)
        self.pool = ActorLearner(BackgammonLearner(trainer, c.seed, choosers), self.actors, self.publish_every,
                                 limit=c.games, address=self.address, cpus_per_actor=self.cpus_per_actor)
        trainer.play_game = self.pool.play_game  # type: ignore[method-assign]  (BackgammonRun.run's loop, unchanged)
        return trainer, extra

    def run(self, progress: Callable[[dict[str, Any]], None] | None = None,
            on_game: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
        try:
            return super().run(progress, on_game)
        finally:
            if self.pool is not None:
                self.pool.close()
                self.report = self.pool.report
                self.pool = None

