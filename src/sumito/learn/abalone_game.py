"""The lab's side of Abalone training: any Sumito player as a training opponent or the expert that is
observed (:class:`PlayerOpponent`), and :func:`make_trainer`, the Abalone trainer of a
:class:`~sumito.learn.training.TrainingConfig`. The game itself (afterstates, rewards, TD-Leaf's search) is
:mod:`sumito.models.abalone_game`, below the players."""

from __future__ import annotations

from sumito.games.abalone import DrawRules, Game, Position
from sumito.learn.training import Trainer, TrainingConfig
from sumito.models.abalone_game import AbaloneLearningGame
from sumito.players import game_history, make_player
from sumito.players.base import seeded_spec


class PlayerOpponent:
    """A Sumito player (from a spec) as a training opponent, or the expert that is observed."""

    def __init__(self, spec: str, seed: int | None = None) -> None:
        if seed is not None:
            spec = seeded_spec(spec, seed)
        self.spec = spec
        self.player = make_player(spec)

    def choose_move(self, game: Game) -> int:
        return self.player.choose(game.position, history=game_history(game), draw=game.draw_counters()).code


def make_trainer(config: TrainingConfig) -> Trainer:
    """The trainer of ``config`` on Abalone: its layout, encoding and draw rules, Sumito players as opponents."""
    game = AbaloneLearningGame(
        config.encoding,
        Position.start(config.layout),
        DrawRules(max_plies=config.max_plies or None, repetitions=config.repetitions or None),
        opening_plies=config.opening_plies,
    )
    return Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))
