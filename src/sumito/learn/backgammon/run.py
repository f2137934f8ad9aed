"""A backgammon training run on disk (Wiering's regimes), which resumes after a kill and keeps its best
network: ``sumito bg train`` and ``experiments/wiering_backgammon.py`` both run one :class:`BackgammonRun`.

The folder holds ``config.json`` (the :class:`BackgammonRunConfig`), ``checkpoint.npz`` (the trainer, written
atomically every ``checkpoint_every`` training games (default 100), at every test point and on Ctrl-C:
:meth:`~sumito.models.backgammon.modular.ModularTrainer.save_checkpoint`), ``curve.csv`` (one row per test point
and opponent), ``best.npz`` and ``best.json`` (the network with the best equity so far against ``best_against``,
as the paper keeps its best network) and ``network.npz`` (the network of the last test point). The folder's
handling (refusing to overwrite a run or to resume none, ``config.json``, the atomic curve, removing what a
kill left) is the shared :class:`sumito.learn.runfolder.RunFolder`, as for Abalone's runs; the checkpoint
is the modular trainer's own, as Wiering's networks learn offline, after each game.

**Stopping and resuming.** A killed run (``kill -9``) loses at most the games since its last checkpoint; when it
is resumed, the temporary files the kill left are removed (:func:`~sumito.fileio.remove_stale_temps`) and it
carries on from the checkpoint. Ctrl-C is read between games: the game in progress is finished, the checkpoint
saved, and :meth:`BackgammonRun.run` raises :class:`TrainingInterrupted` (a ``KeyboardInterrupt``); a second Ctrl-C
stops at once, and the run resumes from the last checkpoint. Ctrl-C during a test stops the test (it is made
again on resume). The trainer's state changes only between games and is saved whole (networks, dice generator,
counters), and tests are seeded from the run's seed, so a resumed run gives the curve and the networks of an
uninterrupted one, wherever it stopped (the training time aside). A chooser with a state of its own (an
``expert`` or ``opponent`` that draws random numbers) starts afresh on resume, as it always did at test points.

Test points come every ``test_every`` training games and at the end. At each, the greedy network plays
``test_games`` games against every ``test_against`` player, sides alternating game by game
(:func:`~sumito.arena.backgammon.play_match`), from a random generator seeded by the run's seed and
the game count, so a resumed run's tests are the ones an uninterrupted run makes. Equity is points per game
(±1/2/3) with a 95% interval.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.backgammon import play_match
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text, read_json_file
from sumito.learn.runfolder import RunFolder as Folder
from sumito.models.backgammon.modular import ENCODINGS, HIDDEN, OUTPUTS, ModularTrainer, ModularValue
from sumito.models.network import NetworkError
from sumito.players.backgammon.players import make_bg_player

REGIMES = ("self", "expert", "observe")
CURVE_FIELDS = ("games", "opponent", "n", "equity", "half_width", "win_rate", "points_sum", "points_sq", "wins",
                "gammons_won", "gammons_lost", "train_seconds")


#: training games between checkpoints (besides the test points); a kill loses at most this many
CHECKPOINT_EVERY = 100


class BackgammonRunError(SumitoError):
    """A bad backgammon run configuration or folder (one-line message)."""


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :meth:`BackgammonRun.run`; ``games`` is the game count of the checkpoint on disk, which
    ``saved`` says was written just now (False after a second Ctrl-C: the last regular checkpoint stands)."""

    def __init__(self, games: int, saved: bool) -> None:
        super().__init__(games, saved)
        self.games = games
        self.saved = saved


class _CtrlC:
    """SIGINT while ``deferred`` (a training game is under way) only sets ``requested``, read between games;
    otherwise (tests, or a second Ctrl-C) it raises ``KeyboardInterrupt`` at once, as Python's own handler."""

    def __init__(self) -> None:
        self.requested = False
        self.deferred = False

    def __call__(self, signum: int, frame: object) -> None:
        if self.deferred and not self.requested:
            self.requested = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[_CtrlC]:
        # only the main thread may set handlers; where SIGINT is ignored (a background job), it stays ignored
        if threading.current_thread() is not threading.main_thread() or \
                signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
            yield self
            return
        old = signal.signal(signal.SIGINT, self)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, old)


@dataclass
class BackgammonRunConfig:
    """One training run. ``regime``: ``self`` (self-play), ``expert`` (the network plays ``expert``) or
    ``observe`` (``expert`` plays itself, the network watches); ``targets``: ``own`` or ``expert`` (the
    expert's evaluations, which needs a gnubg ``expert``)."""

    regime: str = "self"
    targets: str = "own"
    expert: str = "gnubg:ply=0"
    encoding: str = "wiering"
    outputs: int = 7
    hidden: tuple[int, int, int] = HIDDEN
    alpha: float = 0.01
    lam: float = 0.6
    points: bool = False
    games: int = 5000
    seed: int = 1
    test_every: int = 1000
    test_games: int = 1000
    test_against: tuple[str, ...] = ("pubeval",)
    best_against: str = ""  # default: the first of test_against
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> BackgammonRunConfig:
        if self.regime not in REGIMES:
            raise BackgammonRunError(f"regime is one of {', '.join(REGIMES)}, not {self.regime!r}")
        if self.targets not in ("own", "expert"):
            raise BackgammonRunError(f"targets is 'own' or 'expert', not {self.targets!r}")
        if self.encoding not in ENCODINGS:
            raise BackgammonRunError(f"encoding is one of {', '.join(ENCODINGS)}, not {self.encoding!r}")
        if self.outputs not in OUTPUTS:
            raise BackgammonRunError(f"outputs is 1 or 7, not {self.outputs!r}")
        if len(self.hidden) != 3 or any(int(h) < 1 for h in self.hidden):
            raise BackgammonRunError(f"hidden is three positive numbers (endgame, race, other), not {self.hidden!r}")
        if not 0.0 < self.alpha <= 1.0:
            raise BackgammonRunError(f"alpha is in (0, 1], not {self.alpha!r}")
        if not 0.0 <= self.lam <= 1.0:
            raise BackgammonRunError(f"lambda is in [0, 1], not {self.lam!r}")
        for name in ("games", "test_every", "test_games"):
            if int(getattr(self, name)) < (0 if name == "test_games" else 1):
                raise BackgammonRunError(f"{name} must be positive, not {getattr(self, name)!r}")
        if self.best_against and self.best_against not in self.test_against:
            raise BackgammonRunError(f"best_against {self.best_against!r} is not one of test_against")
        self.hidden = tuple(int(h) for h in self.hidden)  # type: ignore[assignment]
        self.test_against = tuple(self.test_against)
        return self

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BackgammonRunConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise BackgammonRunError(f"unknown run settings: {', '.join(sorted(unknown))}")
        data = dict(data)
        for key in ("hidden", "test_against"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(**data).check()


#: how ``sumito bg train`` spells the settings whose name is not the field's
RUN_FLAGS = {"lam": "--lambda", "games": "-n"}


def checkpoint_games(config: BackgammonRunConfig) -> list[int]:
    """The game counts at which the run is tested (every ``test_every`` games and at the end)."""
    return sorted({*range(config.test_every, config.games + 1, config.test_every), config.games})


class BackgammonRun:
    """One run in ``folder``: :meth:`run` trains to ``config.games`` (resuming from the checkpoint if there is
    one), testing and keeping the best network on the way. ``make_player(spec)`` builds test opponents and the
    expert (default: :func:`sumito.players.backgammon.players.make_bg_player`), called as
    ``make_player(spec, rng_seed=N)``. ``checkpoint_every``: training games between checkpoints (module
    notes)."""

    def __init__(self, folder: str | Path, config: BackgammonRunConfig | None = None, *, resume: bool = False,
                 make_player: Callable[[str], Any] | None = None, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self.folder = Path(folder)
        if int(checkpoint_every) < 1:
            raise BackgammonRunError(f"checkpoint_every must be 1 or more, not {checkpoint_every!r}")
        # not part of the config: it changes when the run is saved, never what it computes
        self.checkpoint_every = int(checkpoint_every)
        self.make_player = make_bg_player if make_player is None else make_player
        self.files = Folder(self.folder, CURVE_FIELDS, BackgammonRunError)
        self.files.check(resume, "resume it or choose another folder")
        if resume:
            saved = self.saved_config()
            if config is not None:
                wanted = asdict(config.check())
                wanted.pop("games")  # the one setting a resume may change: the run trains on to more games
                self.files.check_settings(wanted, RUN_FLAGS, "resume it with the settings it was started with "
                                          "(only -n may grow), or use a new --out folder")
                if config.games < saved.games:
                    raise BackgammonRunError(f"{self.folder} is a run of {saved.games} games; it cannot be resumed to "
                                     f"fewer ({config.games})")
                if config.games > saved.games:  # train on: the checkpoint carries on as if it had been planned
                    saved.games = config.games
                    self.files.write_config(asdict(saved))
            self.config = saved
        else:
            self.config = (config or BackgammonRunConfig()).check()
        self.best_against = self.config.best_against or (self.config.test_against[0] if self.config.test_against
                                                         else "")

    @property
    def checkpoint(self) -> Path:
        return self.files.checkpoint

    @property
    def curve(self) -> Path:
        return self.files.curve

    def saved_config(self) -> BackgammonRunConfig:
        try:
            return BackgammonRunConfig.from_dict(self.files.saved_config())
        except TypeError as exc:
            raise BackgammonRunError(f"{self.folder}: cannot read config.json ({exc})") from None

    def curve_rows(self) -> list[dict[str, str]]:
        return self.files.curve_rows()

    def _trainer(self, expert: Any) -> tuple[ModularTrainer, dict[str, Any]]:
        c = self.config
        choosers: dict[str, Any] = {}
        if c.regime == "expert":
            choosers["opponent"] = expert
        elif c.regime == "observe":
            choosers["observe"] = expert
        if c.targets == "expert":
            if not hasattr(expert, "evaluate"):
                raise BackgammonRunError(
                    f"targets=expert needs an expert that evaluates positions (gnubg), not {c.expert!r}")
            choosers["evaluator"] = expert
        if self.checkpoint.exists():
            try:
                return ModularTrainer.load_checkpoint(self.checkpoint, **choosers)
            except NetworkError as exc:
                raise BackgammonRunError(str(exc)) from None
        model = ModularValue(np.random.default_rng([c.seed, 0]), hidden=c.hidden, encoding=c.encoding,
                             outputs=c.outputs)
        trainer = ModularTrainer(model, np.random.default_rng([c.seed, 1]), alpha=c.alpha, lam=c.lam,
                                 points=c.points, targets=c.targets, **choosers)
        return trainer, {}

    def run(self, progress: Callable[[dict[str, Any]], None] | None = None,
            on_game: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
        """Train to the end (or on from the checkpoint); returns the curve rows. ``progress`` gets each row;
        ``on_game`` the run's count of training games, once when training starts (a resumed run's count) and
        after each game.

        Ctrl-C saves a checkpoint between games and raises :class:`TrainingInterrupted` (module notes)."""
        c = self.config
        self.files.open()  # removes what a kill between a write and its rename left behind
        if not self.files.config_file.exists():
            self.files.write_config(asdict(c))
        needs_expert = c.regime != "self" or c.targets == "expert"
        expert = self.make_player(c.expert, rng_seed=c.seed) if needs_expert else None
        expert = getattr(expert, "engine", expert)  # the GnubgExpert behind the player evaluates positions
        trainer, extra = self._trainer(expert)
        seconds = float(extra.get("train_seconds", 0.0))
        # the last test point whose tests are all in the curve; a checkpoint from before checkpoints came between
        # test points was always written right after its tests
        tested = int(extra.get("tested", trainer.games))
        # rows written after the last checkpoint (a kill between the two writes) are made again below
        rows: list[dict[str, Any]] = [r for r in self.curve_rows() if int(r["games"]) <= tested]
        best = self._best()
        saved = trainer.games

        def save() -> None:
            nonlocal saved
            trainer.save_checkpoint(self.checkpoint, extra={"train_seconds": round(seconds, 3), "tested": tested})
            saved = trainer.games

        ctrl_c = _CtrlC()
        mid_game = False
        if on_game is not None:
            on_game(trainer.games)
        try:
            with ctrl_c.installed():
                for point in checkpoint_games(c):
                    if point <= tested:
                        continue
                    while trainer.games < point:
                        t0 = time.perf_counter()
                        ctrl_c.deferred = mid_game = True
                        trainer.play_game()
                        ctrl_c.deferred = mid_game = False
                        seconds += time.perf_counter() - t0
                        if on_game is not None:
                            on_game(trainer.games)
                        if ctrl_c.requested:
                            raise KeyboardInterrupt
                        if trainer.games % self.checkpoint_every == 0 and trainer.games < point:
                            save()
                    for k, spec in enumerate(c.test_against):
                        if c.test_games <= 0:
                            break
                        # made afresh for each test from the run's seed, so a resumed run tests exactly the same way
                        opponent = self.make_player(spec, rng_seed=int(np.random.SeedSequence([c.seed, point, k])
                                                                        .generate_state(1)[0]))
                        m = play_match(trainer.model, opponent, c.test_games,
                                       np.random.default_rng([c.seed, point, k, 7]))
                        row = {"games": point, "opponent": spec, "n": m.games, "equity": round(m.equity, 4),
                               "half_width": round(m.half_width, 4), "win_rate": round(m.win_rate, 4),
                               "points_sum": m.points_sum, "points_sq": m.points_sq, "wins": m.wins,
                               "gammons_won": m.gammons_won, "gammons_lost": m.gammons_lost,
                               "train_seconds": round(seconds, 2)}
                        rows.append(row)
                        if progress is not None:
                            progress(row)
                        if spec == self.best_against and (best is None or m.equity > best["equity"]):
                            best = {"games": point, "opponent": spec, "equity": m.equity, "half_width": m.half_width}
                            trainer.model.save(self.folder / "best.npz")
                            atomic_write_text(self.folder / "best.json", json.dumps(best, indent=2) + "\n")
                    self.files.write_curve(rows)
                    trainer.model.save(self.folder / "network.npz")
                    tested = point
                    save()
        except KeyboardInterrupt:
            if mid_game:  # a second Ctrl-C inside a game: the trainer is half-updated, keep the last checkpoint
                raise TrainingInterrupted(saved, False) from None
            # between games (or in a test, which is made again on resume): the trainer's state is whole. (Another
            # Ctrl-C during this save cuts it short; being atomic, it then leaves the last checkpoint as it was.)
            save()
            raise TrainingInterrupted(saved, True) from None
        if not self.curve.exists():
            self.files.write_curve(rows)
        return rows

    def _best(self) -> dict[str, Any] | None:
        """best.json's record, or None when there is none or it is damaged (the next better test writes it)."""
        try:
            best = read_json_file(self.folder / "best.json", "best-network record")  # bounded in size and nesting
        except ValueError:
            return None
        numbers = ("games", "equity", "half_width")
        if not (isinstance(best, dict) and isinstance(best.get("opponent"), str) and all(
                isinstance(best.get(k), int | float) and not isinstance(best.get(k), bool) for k in numbers)):
            return None
        return best
