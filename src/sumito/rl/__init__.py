"""Sumito as a reinforcement-learning environment: PettingZoo, Gymnasium and OpenSpiel.

This package is the one public name for everything RL:

* :func:`abalone_env` — PettingZoo AEC environment, agents ``black`` and ``white``;
* :func:`single_agent_env` — Gymnasium environment against any Sumito player, registered as
  ``Sumito/Abalone-v0`` (``gymnasium.make("sumito.rl:Sumito/Abalone-v0", opponent=...)``);
* :func:`register_openspiel` — registers the OpenSpiel game ``python_sumito_abalone`` with ``pyspiel``;
* :func:`action_space` (:class:`ActionSpace`) — the fixed action space of each board size, its mask and the
  mapping between actions and moves; :class:`ArrayGame` — the array game they all play;
* :func:`board_symmetries` (:class:`BoardSymmetries`) — the board's 12 symmetries on observations,
  actions, masks and positions, for augmentation.

The libraries come with the optional extra ``pip install 'sumito[rl]'``. The action space and the
array game need none of them; the environments say in one line how to install what they lack.
Layering: the action space, the array game, the options, the symmetries and the OpenSpiel game stand on the
rules alone and live in :mod:`sumito.rlcore`, below the players (the ``openspiel-mcts`` player searches the
OpenSpiel game); the environments here also play Sumito's players as opponents.
"""

from __future__ import annotations

import importlib
from typing import Any

from sumito.rlcore import MissingExtraError
from sumito.rlcore.actions import ActionSpace, action_space
from sumito.rlcore.core import ArrayGame, IllegalActionError
from sumito.rlcore.symmetry import BoardSymmetries, board_symmetries

GYM_ID = "Sumito/Abalone-v0"
_LAZY = {
    "abalone_env": ("sumito.rl.pettingzoo_env", "PettingZoo"),
    "AbaloneEnv": ("sumito.rl.pettingzoo_env", "PettingZoo"),
    "single_agent_env": ("sumito.rl.gym_env", "Gymnasium"),
    "SingleAgentEnv": ("sumito.rl.gym_env", "Gymnasium"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'sumito.rl' has no attribute {name!r}")
    module, library = _LAZY[name]
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        raise MissingExtraError(
            f"sumito.rl.{name} needs {library} ({exc.name} is not installed): pip install 'sumito[rl]'"
        ) from None


def register_openspiel() -> str:
    """Register the OpenSpiel game with ``pyspiel`` (once; later calls do nothing) and return its short name,
    ``python_sumito_abalone``, for ``pyspiel.load_game("python_sumito_abalone(layout=mini)")``."""
    return importlib.import_module("sumito.rlcore.openspiel_game").SHORT_NAME


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="sumito.rl.gym_env:SingleAgentEnv")


_register_gymnasium()

__all__ = ["GYM_ID", "ActionSpace", "ArrayGame", "BoardSymmetries", "IllegalActionError", "MissingExtraError",
           "abalone_env", "action_space", "board_symmetries", "register_openspiel", "single_agent_env"]
