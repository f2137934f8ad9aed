"""Abalone as arrays and actions, standing on the engine alone: the fixed action space of each board
size and its mask kernel (:mod:`~sumito.rlcore.actions`), the array game every environment plays
(:mod:`~sumito.rlcore.core`), the environments' options (:mod:`~sumito.rlcore.options`), the board's 12
symmetries on observations and actions (:mod:`~sumito.rlcore.symmetry`) and the OpenSpiel game
``python_sumito_abalone`` (:mod:`~sumito.rlcore.openspiel_game`).

It sits below the players, so that the ``openspiel-mcts`` player can search the OpenSpiel game, and
below :mod:`sumito.rl`, whose environments also play Sumito's players as opponents. Users reach these
through :mod:`sumito.rl` (``sumito.rl.action_space``, ``sumito.rl.ArrayGame``, ``sumito.rl.register_openspiel``).
"""


class MissingExtraError(ImportError):
    """An environment whose library is not installed."""
