"""Backgammon's learning models: Tesauro's and Wiering's encodings (:mod:`.features`), the backgammon
:class:`~sumito.models.game.LearningGame` and one-network player (:mod:`.learning`), and Wiering's modular
network with its offline TD(λ) trainer (:mod:`.modular`). They stand on the rules in
:mod:`sumito.games.backgammon` and on the shared value networks and TD updates of :mod:`sumito.models`."""
