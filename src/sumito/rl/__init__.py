"""Sumito as a reinforcement-learning environment: PettingZoo, Gymnasium and OpenSpiel.

* :func:`abalone_env` — PettingZoo AEC environment, agents ``black`` and ``white``;
* :func:`single_agent_env` — Gymnasium environment against any Sumito player, registered as
  ``Sumito/Abalone-v0`` (``gymnasium.make("sumito.rl:Sumito/Abalone-v0", opponent=...)``);
* :mod:`sumito.rl.openspiel_game` — the OpenSpiel game ``python_sumito_abalone`` (importing the
  module registers it);
* :mod:`sumito.rl.actions` — the fixed action space of each board size, its mask kernel and the
  mapping between actions and moves; :mod:`sumito.rl.core` — the array game they all play;
* :func:`board_symmetries` (:mod:`sumito.rl.symmetry`) — the board's 12 symmetries on observations,
  actions, masks and positions, for augmentation.

The libraries come with the optional extra ``pip install 'sumito[rl]'``. The action space and the
array game need none of them; the environments say in one line how to install what they lack.
Layering: ``actions``, ``core``, ``options``, ``symmetry`` and ``openspiel_game`` stand on the engine alone and live in
:mod:`sumito.rlcore`, below the players (the ``openspiel-mcts`` player searches the OpenSpiel game);
``sumito.rl.actions`` and the others re-export them. ``gym_env`` also plays Sumito's players as opponents.
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


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="sumito.rl.gym_env:SingleAgentEnv")


_register_gymnasium()

__all__ = ["GYM_ID", "ActionSpace", "ArrayGame", "BoardSymmetries", "IllegalActionError", "MissingExtraError",
           "abalone_env", "action_space", "board_symmetries", "single_agent_env"]
