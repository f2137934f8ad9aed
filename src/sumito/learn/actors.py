"""Distributed self-play training on Ray: N actors play games, one learner applies the updates.

``sumito train --actors N`` and ``sumito bg train --actors N``. The learner is the ordinary trainer
(:class:`~sumito.learn.training.Trainer`, or backgammon's
:class:`~sumito.models.backgammon.modular.ModularTrainer`) in the driver process; it alone changes the
weights, writes checkpoints and evaluates. Each *actor* is a Ray actor process holding a trainer of its
own, built from the same configuration, which plays one whole game at a time.

**One game.** The learner sends an actor a snapshot of its weights and a *job*: the game's number and its
exploration state (ε for that game, and the game's random generator). The actor plays the game exactly as
the sequential trainer would from those weights — online TD(λ) changes its copy of the weights move by move,
so its later moves are the ones the sequential trainer would choose — and records what its learners did:
a *trajectory*, plain numpy data (:class:`TrajectoryRecorder`). For the afterstate and TD-Leaf(λ) regimes that
is every TD step of each learning side in order (the input row of ``s_t``, the reward, the index of the row
of ``s_{t+1}`` or "terminal", the bootstrap value used), the trace resets, and the offline λ-return updates
(rows and rewards); for backgammon's modular net it is the game's afterstates and its result, from which
:meth:`~sumito.models.backgammon.modular.ModularTrainer.learn_game` computes everything at the learner.
The learner then applies the game to its *current* weights through the very same TD functions
(:meth:`TDLambda.step <sumito.models.td.TDLambda.step>`, ``Trainer._offline_update``, ``learn_game``),
bootstrapping on ``V(s_{t+1})`` computed with its current weights, and does the bookkeeping of
:meth:`Trainer.play_game <sumito.learn.training.Trainer.play_game>` (game count, ε decay). When no game
was applied between the snapshot and now (``fresh``), the actor's weights at every step were the learner's,
so the recorded bootstrap values are the learner's own to the last bit and are used as they are.

**Exactness and randomness.** With one actor, the learner hands the actor its random generator's state and
takes back the state the game left: one stream across games, as in the sequential trainer. With
``--actors 1 --publish-every 1`` the run is therefore the sequential run, game for game and bit for bit
(weights, traces, ε, the generator; ``tests/test_actors.py``). With two or more actors games overlap and
cannot share a stream, so game ``g`` draws from its own generator, seeded by the run's seed and ``g``
(``SeedSequence(seed, spawn_key=(0xAC7, g))``): a game is reproducible from its number and the weights it
was given, but which weights those are depends on timing, so such a run is not repeatable bit for bit.

**Staleness.** The learner publishes its weights (one ``ray.put``) at most every ``publish_every`` = K
applied games; a job takes the latest published weights. A game is applied in completion order, so when it
is applied the weights it was played with are ``s = a − p`` games old (``a`` games applied now, ``p`` when
they were published): 0 to K − 1 games old when it starts ((K − 1)/2 on average), plus the games the other
actors finished while it was in flight (N − 1 on average with N actors; many more for a game much longer
than the others). So ``s`` is about ``K − 1 + N − 1`` at most and ``(K − 1)/2 + N − 1`` on average (measured:
1.50 for N = K = 2 and 4.50 for N = K = 4), with a tail of long games (backgammon's first self-play games,
which can run to 500 plies, reached 74); ``staleness`` in the report counts the games by ``s``. A stale
game's own moves came from older weights (its TD errors are the current network's judgement of an older
policy's positions); nothing else changes: each game is applied once, to the current weights, with current values
as targets. With one actor and K = 1, ``s`` is always 0.

**Faults.** An actor that dies (its process killed, out of memory, its node lost: Ray's
``RayActorError``) is replaced by a new one with the same recipe, and the game it was playing is dropped —
nothing of it was applied — and played again from the start by an actor that is free, under **the same
game number** and job (ε and generator), with the weights published by then. Game numbers are contiguous
from the count the run started at, each is applied at most once (checked: :class:`ActorLearnerError` on a
duplicate), and the run stops at exactly the game count asked. After more than ``max_replacements``
deaths the run stops with an error rather than loop. An ordinary error inside a game is raised as it is.

**Checkpoints** are the learner's, in the sequential run's format (the caller writes them between games:
the learner's state between two applied games is whole); a killed run resumes from its checkpoint and the
games in flight at the kill are lost (game numbers restart at the checkpoint's count). Ray: an instance the
pool starts (no address given and Ray not running) is shut down by :meth:`ActorLearner.close`.

**Resources.** An actor takes no CPU of Ray's accounting (``num_cpus=0``, spread over the nodes): it holds a
process, not a reservation, so the evaluation tasks (one CPU each, :data:`sumito.arena.executor.TASK_CPUS`)
always find the cluster's CPUs free, whatever its shape. A reservation could deadlock: on two nodes of one
CPU, two actors of half a CPU each leave half a CPU on each node and an evaluation task, which needs a whole
one on one node, waits forever. While an evaluation runs the actors finish the games they are playing,
sharing the cores with it; between evaluations they have the cores to themselves. ``cpus_per_actor`` asks
for a reservation anyway, and is refused in one line when the actors could fill every node.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from sumito.arena.executor import TASK_CPUS, init_ray, ray_address
from sumito.errors import SumitoError
from sumito.learn.abalone_game import make_trainer
from sumito.learn.training import GameStats, Trainer, TrainingConfig
from sumito.models.td import TDLambda

#: the spawn key that separates the actors' per-game generators from every other stream of a run
ACTOR_SEED_KEY = 0xAC7
#: event kinds of a recorded trajectory
START, STEP, END, OFFLINE = 0, 1, 2, 3


class ActorLearnerError(SumitoError):
    """A distributed training run cannot go on (no Ray, actors that keep dying, a bad setting)."""


def game_generator_state(seed: int, number: int) -> dict[str, Any]:
    """The state of game ``number``'s own random generator (two actors or more; module notes)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(ACTOR_SEED_KEY, number))).bit_generator.state


# ------------------------------------------------------------------------------------------------ the adapters
class LearnerAdapter(Protocol):
    """What the actor–learner loop needs of a trainer (the learner side)."""

    @property
    def games(self) -> int:
        """Games applied so far (the version of the weights)."""
        ...

    def weights(self) -> Any:
        """A snapshot of the weights to publish (numpy arrays)."""
        ...

    def job(self, number: int, stream: bool) -> dict[str, Any]:
        """Game ``number``'s exploration state (``stream``: one actor, the learner's own generator)."""
        ...

    def apply(self, trajectory: dict[str, Any], fresh: bool, stream: bool) -> Any:
        """Apply one game's trajectory to the current weights, as the sequential trainer would; returns what
        the trainer's ``play_game`` returns."""
        ...

    def recipe(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """``(build, args)``: ``build(actor_id, *args)`` makes, in an actor process, an object whose
        ``play(weights, job)`` returns a trajectory. Both travel to the actor by (cloud)pickling."""
        ...


class TrajectoryRecorder:
    """The TD updates of one Abalone-trainer game, as plain data (module notes).

    Installed on a :class:`Trainer`, it replaces the two learners by :class:`_RecordingTD` (a
    :class:`TDLambda` that records each call and then does exactly what a TDLambda does) and wraps
    ``_offline_update``; :meth:`trajectory` links each step to the row of its ``s_{t+1}`` (the next step
    of the same side: an afterstate becomes the side's ``prev`` after the step that bootstraps on it)."""

    def __init__(self, trainer: Trainer) -> None:
        c = trainer.config
        self.trainer = trainer
        self.reset()
        trainer.learners = {
            side: _RecordingTD(self, side, trainer.network, alpha=c.alpha, gamma=c.gamma, lam=c.lam, kappa=c.kappa,
                               trace_decay=c.trace_decay)
            for side in (1, 2)
        }
        offline = trainer._offline_update

        def recording_offline(X: np.ndarray, rewards: np.ndarray) -> None:
            self.ops.append((OFFLINE, 0, len(self.rows), len(X)))
            self.rows.extend(np.array(X, dtype=np.float64))
            self.rewards.extend(float(r) for r in rewards)
            self.values.extend([math.nan] * len(X))
            offline(X, rewards)

        trainer._offline_update = recording_offline  # type: ignore[method-assign]

    def reset(self) -> None:
        self.ops: list[tuple[int, int, int, int]] = []  # (kind, side, first row, rows)
        self.rows: list[np.ndarray] = []
        self.rewards: list[float] = []
        self.values: list[float] = []  # the bootstrap value a step used (nan: terminal)

    def step(self, side: int, x: Any, reward: float, terminal: bool, next_value: float | None) -> None:
        if not terminal and next_value is None:
            raise ActorLearnerError("a recorded TD step bootstraps on a value (the trainer never passes x_next)")
        self.ops.append((STEP, side, len(self.rows), 1))
        self.rows.append(np.array(x, dtype=np.float64))
        self.rewards.append(float(reward))
        self.values.append(math.nan if terminal else float(next_value))  # type: ignore[arg-type]

    def trajectory(self, stats: GameStats) -> dict[str, Any]:
        n_in = self.trainer.game.n_inputs
        ops = np.array(self.ops, dtype=np.int64).reshape(-1, 4)
        next_rows = np.full(len(self.rows), -1, dtype=np.int64)
        last: dict[int, int] = {}  # side -> row of its last bootstrapping step, waiting for its s_{t+1}
        for kind, side, row, _ in self.ops:
            if kind != STEP:
                continue
            if side in last:
                next_rows[last.pop(side)] = row
            if not math.isnan(self.values[row]):
                last[side] = row
        # a step left waiting bootstrapped on a constant (credit=afterstate's winning move): no row to recompute
        return {
            "ops": ops,
            "X": np.array(self.rows, dtype=np.float64).reshape(-1, n_in),
            "rewards": np.array(self.rewards, dtype=np.float64),
            "values": np.array(self.values, dtype=np.float64),
            "next_rows": next_rows,
            "plies": int(stats.plies),
            "winner": int(stats.winner),
            "learner_sides": tuple(int(s) for s in stats.learner_sides),
        }


class _RecordingTD(TDLambda):
    """A TDLambda that tells a :class:`TrajectoryRecorder` what it does (and then does it unchanged)."""

    def __init__(self, recorder: TrajectoryRecorder, side: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._recorder = recorder
        self._side = side

    def start_episode(self) -> None:
        self._recorder.ops.append((START, self._side, -1, 0))
        super().start_episode()

    def step(self, x_t: Any, reward: float = 0.0, x_next: Any = None, terminal: bool = False, *,
             next_value: float | None = None) -> float:
        if x_next is not None:
            raise ActorLearnerError("a recorded TD step bootstraps on a value (the trainer never passes x_next)")
        self._recorder.step(self._side, x_t, reward, terminal, next_value)
        return super().step(x_t, reward, x_next, terminal, next_value=next_value)

    def end_episode(self, x_last: Any = None, reward: float = 0.0) -> float | None:
        delta = super().end_episode(x_last, reward)  # its terminal step is recorded by step()
        self._recorder.ops.append((END, self._side, -1, 0))
        return delta


class AbalonePlayer:
    """The actor side for :class:`Trainer`: a trainer of its own (``factory(config)``) that plays game after
    game from the weights and job it is given, recording each."""

    def __init__(self, actor_id: int, config: dict[str, Any], factory: Callable[[TrainingConfig], Trainer]) -> None:
        self.actor_id = actor_id
        self.trainer = factory(TrainingConfig(**config))
        self.recorder = TrajectoryRecorder(self.trainer)

    def play(self, weights: np.ndarray, job: dict[str, Any]) -> dict[str, Any]:
        t = self.trainer
        np.copyto(t.network.theta, weights)
        t.games = int(job["number"])  # the regime, the colours and the opponent's seed follow the game number
        t.epsilon = float(job["epsilon"])
        t.rng.bit_generator.state = job["rng"]
        t._opponent = None
        self.recorder.reset()
        stats = t.play_game()
        out = self.recorder.trajectory(stats)
        out["rng"] = t.rng.bit_generator.state
        return out


class AbaloneLearner:
    """The learner side for :class:`Trainer` (``factory`` builds the actors' trainers from the config;
    default :func:`sumito.learn.abalone_game.make_trainer`, what ``sumito train`` uses)."""

    def __init__(self, trainer: Trainer, factory: Callable[[TrainingConfig], Trainer] | None = None) -> None:
        self.trainer = trainer
        self.factory = factory or make_trainer

    @property
    def games(self) -> int:
        return self.trainer.games

    def weights(self) -> np.ndarray:
        return self.trainer.network.theta.copy()

    def job(self, number: int, stream: bool) -> dict[str, Any]:
        t, c = self.trainer, self.trainer.config
        if number < t.games:
            raise ActorLearnerError(f"game {number} was issued after {t.games} games had been applied")
        epsilon = t.epsilon
        for _ in range(number - t.games):  # the ε the sequential trainer would have after `number` games
            epsilon = max(c.epsilon_min, epsilon * c.epsilon_decay)
        rng = t.rng.bit_generator.state if stream else game_generator_state(c.seed, number)
        return {"epsilon": epsilon, "rng": rng}

    def apply(self, trajectory: dict[str, Any], fresh: bool, stream: bool) -> GameStats:
        t = self.trainer
        net = t.network
        X = np.array(trajectory["X"], dtype=np.float64)  # writable copies: the kernels' usual types
        rewards = np.array(trajectory["rewards"], dtype=np.float64)
        values = np.array(trajectory["values"], dtype=np.float64)
        next_rows = np.asarray(trajectory["next_rows"])
        for kind, side, row, count in np.asarray(trajectory["ops"]).tolist():
            if kind == START:
                t.learners[side].start_episode()
            elif kind == END:
                t.learners[side].end_episode()
            elif kind == OFFLINE:
                t._offline_update(X[row:row + count], rewards[row:row + count])
            else:
                value = values[row]
                if math.isnan(value):
                    t.learners[side].step(X[row], rewards[row], terminal=True)
                    continue
                nxt = int(next_rows[row])
                if not fresh and nxt >= 0:  # V(s_{t+1}) by the learner's weights now (or the expert's)
                    x = X[nxt]
                    own = float(net.values(x[None, :])[0]) if t.expert is None else 0.0
                    value = t._target_value(x, own)
                t.learners[side].step(X[row], rewards[row], next_value=float(value))
        # the end of Trainer.play_game
        t.games += 1
        t._opponent = None
        t.epsilon = max(t.config.epsilon_min, t.epsilon * t.config.epsilon_decay)
        net.metadata["games"] = t.games
        if stream:
            t.rng.bit_generator.state = trajectory["rng"]
        return GameStats(int(trajectory["plies"]), int(trajectory["winner"]), tuple(trajectory["learner_sides"]))

    def recipe(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return AbalonePlayer, (asdict(self.trainer.config), self.factory)


# ------------------------------------------------------------------------------------------------ Ray actors
class _GameActor:
    """The body of a Ray actor: builds its player once, then plays the games it is sent."""

    def __init__(self, build: Callable[..., Any], args: tuple[Any, ...], actor_id: int) -> None:
        with contextlib.suppress(ValueError, OSError):  # Ctrl-C is the driver's (it stops the actors)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.player = build(actor_id, *args)

    def play(self, weights: Any, job: dict[str, Any]) -> dict[str, Any]:
        return self.player.play(weights, job)

    def pid(self) -> int:
        return os.getpid()


_REMOTE_ACTOR: Any = None


def _remote_actor(ray: Any) -> Any:
    global _REMOTE_ACTOR
    if _REMOTE_ACTOR is None:
        _REMOTE_ACTOR = ray.remote(max_restarts=0)(_GameActor)
    return _REMOTE_ACTOR


def _lost(ray: Any) -> tuple[type[BaseException], ...]:
    """What Ray raises for a game whose actor died (killed, out of memory, its node lost)."""
    e = ray.exceptions
    return (e.RayActorError, e.OutOfMemoryError, e.WorkerCrashedError, e.ObjectLostError)


def node_cpus(ray: Any) -> list[float]:
    """The CPUs of each living node of the Ray cluster this process is connected to."""
    return [float(n.get("Resources", {}).get("CPU", 0)) for n in ray.nodes() if n.get("Alive")]


def check_actor_cpus(actors: int, cpus_per_actor: float | None, nodes: list[float]) -> float:
    """Ray's CPU accounting of one actor: 0 by default (module notes). A reservation (``cpus_per_actor`` > 0,
    at most 1) is accepted only where the actors can never hold every node below the one CPU an evaluation task
    needs, wherever Ray places them (some node keeps a CPU free with all the actors on it); else a one-line
    :class:`ActorLearnerError`. A cluster where no task could run at all (no node of a whole CPU) is refused too."""
    largest = max(nodes, default=0.0)
    if largest < TASK_CPUS:
        raise ActorLearnerError(f"the Ray cluster has no node with a whole CPU ({largest:g} at most): neither "
                                "the actors' evaluation games nor any other task could run there")
    if cpus_per_actor is None or cpus_per_actor == 0:
        return 0.0
    if not 0 < cpus_per_actor <= 1 or not math.isfinite(cpus_per_actor):
        raise ActorLearnerError(f"cpus_per_actor must be from 0 to 1, not {cpus_per_actor!r:.20}")
    if actors * cpus_per_actor > largest - TASK_CPUS:
        raise ActorLearnerError(
            f"{actors} actors of {cpus_per_actor:g} CPU could leave no node of the Ray cluster (nodes of "
            f"{', '.join(f'{c:g}' for c in sorted(nodes, reverse=True)[:8])} CPUs) a whole CPU for the evaluation "
            "tasks, which would wait forever: use the default (actors take no CPU) or fewer actors")
    return float(cpus_per_actor)


def require_ray() -> Any:
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ActorLearnerError("--actors needs Ray: pip install 'sumito[ray]'") from None
    return ray


@dataclass
class _Slot:
    actor_id: int
    handle: Any


@dataclass
class ActorReport:
    """What a distributed run did: games applied, actors replaced, weights published, staleness."""

    games: int = 0
    replaced: int = 0
    published: int = 0
    seconds: float = 0.0
    staleness: collections.Counter = field(default_factory=collections.Counter)  # games by staleness

    def staleness_text(self) -> str:
        n = sum(self.staleness.values())
        if not n:
            return "no games"
        mean = sum(s * k for s, k in self.staleness.items()) / n
        return f"staleness mean {mean:.2f}, max {max(self.staleness)} games (0 in {self.staleness[0] / n:.0%})"


class ActorLearner:
    """The actor–learner loop (module notes): ``actors`` Ray actors play, the learner (``adapter``, in this
    process) applies. :meth:`play_game` returns after the next game has been applied — a drop-in for the
    trainer's own ``play_game`` in a training loop — keeping every actor busy meanwhile; ``limit``: the game
    count the run stops at (no game is started beyond it). A context manager: :meth:`close` stops the actors.

    ``address``: a Ray cluster (default: the Ray this process is connected to, else a local instance the
    pool starts and shuts down); ``cpus_per_actor``: Ray's CPU accounting of one actor (default 0, module
    notes; more only where the actors cannot fill every node: :func:`check_actor_cpus`);
    ``max_replacements``: actor deaths tolerated (default 10 + 2 × actors)."""

    def __init__(self, adapter: LearnerAdapter, actors: int, publish_every: int = 1, *, limit: int | None = None,
                 address: str | None = None, cpus_per_actor: float | None = None,
                 max_replacements: int | None = None) -> None:
        if not isinstance(actors, int) or isinstance(actors, bool) or actors < 1:
            raise ActorLearnerError(f"--actors must be at least 1, not {actors!r}")
        if not isinstance(publish_every, int) or isinstance(publish_every, bool) or publish_every < 1:
            raise ActorLearnerError(f"--publish-every must be at least 1, not {publish_every!r}")
        self.adapter = adapter
        self.actors = actors
        self.publish_every = publish_every
        self.limit = limit
        self.address = address
        self.cpus_per_actor = cpus_per_actor
        self.max_replacements = 10 + 2 * actors if max_replacements is None else max_replacements
        self.stream = actors == 1  # one actor: the learner's own generator, as the sequential trainer
        self.report = ActorReport()
        self.slots: list[_Slot] = []
        self._ray: Any = None
        self._owns_ray = False
        self._started = False
        self._idle: list[_Slot] = []
        self._in_flight: dict[Any, tuple[_Slot, dict[str, Any], int]] = {}  # ref -> (slot, job, weights version)
        self._reissue: collections.deque[dict[str, Any]] = collections.deque()
        self._next = 0
        self._applied_below = 0  # every game number below this one has been applied
        self._applied_above: set[int] = set()
        self._weights_ref: Any = None
        self._weights_version = -1
        self._next_actor_id = 0
        self._t0 = 0.0

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> ActorLearner:
        if self._started:
            return self
        ray = require_ray()
        if not ray.is_initialized():
            address = ray_address(self.address)
            init_ray(ray, address, None)
            self._owns_ray = not address
        self._ray = ray
        self._started = True
        try:
            self.cpus_per_actor = check_actor_cpus(self.actors, self.cpus_per_actor, node_cpus(ray))
        except BaseException:
            self.close()
            raise
        self._next = self._applied_below = self.adapter.games
        self._t0 = time.perf_counter()
        try:
            for _ in range(self.actors):
                self._idle.append(self._new_slot())
        except BaseException:
            self.close()
            raise
        return self

    def _new_slot(self) -> _Slot:
        build, args = self.adapter.recipe()
        actor_id = self._next_actor_id
        self._next_actor_id += 1
        handle = _remote_actor(self._ray).options(num_cpus=self.cpus_per_actor, scheduling_strategy="SPREAD").remote(
            build, args, actor_id)
        slot = _Slot(actor_id, handle)
        self.slots.append(slot)
        return slot

    def close(self) -> None:
        """Stop the actors (the games in flight are lost) and a Ray instance the pool started."""
        ray = self._ray
        if ray is not None:
            for ref in list(self._in_flight):
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            for slot in self.slots:
                with contextlib.suppress(Exception):
                    ray.kill(slot.handle, no_restart=True)
            if self._owns_ray:
                with contextlib.suppress(Exception):
                    ray.shutdown()
        self.report.seconds = time.perf_counter() - self._t0 if self._t0 else 0.0
        self._in_flight.clear()
        self._idle.clear()
        self.slots.clear()
        self._ray = None
        self._owns_ray = False

    def __enter__(self) -> ActorLearner:
        return self  # the actors start with the first game

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the loop ----------------------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def applied(self, number: int) -> bool:
        return number < self._applied_below or number in self._applied_above

    def _weights(self) -> Any:
        games = self.adapter.games
        if self._weights_ref is None or games - self._weights_version >= self.publish_every:
            self._weights_ref = self._ray.put(self.adapter.weights())
            self._weights_version = games
            self.report.published += 1
        return self._weights_ref

    def _fill(self) -> None:
        """Give every idle actor a game: one dropped by a dead actor first, else the next number."""
        while self._idle:
            if self._reissue:
                job = self._reissue.popleft()
            elif self.limit is None or self._next < self.limit:
                job = {"number": self._next, **self.adapter.job(self._next, self.stream)}
                self._next += 1
            else:
                return
            slot = self._idle.pop()
            weights = self._weights()
            ref = slot.handle.play.remote(weights, job)
            self._in_flight[ref] = (slot, job, self._weights_version)

    def _replace(self, slot: _Slot) -> None:
        self.report.replaced += 1
        with contextlib.suppress(Exception):
            self._ray.kill(slot.handle, no_restart=True)
        with contextlib.suppress(ValueError):
            self.slots.remove(slot)
        if self.report.replaced > self.max_replacements:
            raise ActorLearnerError(f"{self.report.replaced} actors died; giving up (out of memory? a node lost?)")
        self._idle.append(self._new_slot())

    def play_game(self) -> Any:
        """Wait for the next finished game, apply it, and return what the trainer's ``play_game`` would."""
        self.start()
        ray = self._ray
        self._fill()
        while True:
            if not self._in_flight:
                raise ActorLearnerError(f"no game left to play: the run stops at {self.limit} games")
            ready, _ = ray.wait(list(self._in_flight), num_returns=1)
            ref = ready[0]
            slot, job, version = self._in_flight.pop(ref)
            try:
                trajectory = ray.get(ref)
            except _lost(ray):  # the actor died: drop its game, play it again elsewhere
                self._reissue.append(job)
                self._replace(slot)
                self._fill()
                continue
            except ray.exceptions.RayTaskError as exc:  # the game's own error, as the trainer would raise it
                raise exc.as_instanceof_cause() from None
            number = int(job["number"])
            if self.applied(number):
                raise ActorLearnerError(f"game {number} came back twice")
            games = self.adapter.games
            self.report.staleness[games - version] += 1
            stats = self.adapter.apply(trajectory, games == version, self.stream)
            self._mark_applied(number)
            self.report.games += 1
            self._idle.append(slot)
            self._fill()  # the free actor starts its next game with the weights as they are now
            return stats

    def _mark_applied(self, number: int) -> None:
        self._applied_above.add(number)
        while self._applied_below in self._applied_above:
            self._applied_above.remove(self._applied_below)
            self._applied_below += 1


def adapter_of(learner: Any, factory: Callable[[TrainingConfig], Trainer] | None = None) -> LearnerAdapter:
    """A :class:`LearnerAdapter` for ``learner``: one already, or a :class:`Trainer`."""
    if isinstance(learner, Trainer):
        return AbaloneLearner(learner, factory)
    if all(hasattr(learner, name) for name in ("weights", "job", "apply", "recipe")):
        return learner
    raise ActorLearnerError(f"no actor–learner adapter for {type(learner).__name__} (backgammon: "
                            "sumito.learn.backgammon.actors.BackgammonLearner)")


def train_with_actors(
    learner: Any,
    games: int,
    actors: int,
    publish_every: int = 1,
    on_game: Callable[[Any], None] | None = None,
    *,
    factory: Callable[[TrainingConfig], Trainer] | None = None,
    address: str | None = None,
    cpus_per_actor: float | None = None,
    max_replacements: int | None = None,
) -> ActorReport:
    """Train ``learner`` (a :class:`Trainer` or a :class:`LearnerAdapter`) until it has played ``games``
    games, ``actors`` Ray actors playing, weights published every ``publish_every`` games; ``on_game(stats)``
    after each applied game (the sequential loop's bookkeeping: checkpoints, evaluation). An exception from
    ``on_game`` (``KeyboardInterrupt`` included) stops the actors and propagates; the learner's state is then
    whole, as it was after the last applied game."""
    adapter = adapter_of(learner, factory)
    with ActorLearner(adapter, actors, publish_every, limit=games, address=address, cpus_per_actor=cpus_per_actor,
                      max_replacements=max_replacements) as pool:
        while adapter.games < games:
            stats = pool.play_game()
            if on_game is not None:
                on_game(stats)
    return pool.report
