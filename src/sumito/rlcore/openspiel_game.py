"""Abalone as an OpenSpiel game: ``python_sumito_abalone`` (importing this module registers it).

    import pyspiel
    import sumito.rlcore.openspiel_game  # registers the game
    game = pyspiel.load_game("python_sumito_abalone(layout=mini,inline_only=True)")

Parameters (all optional): ``layout`` (a layout name, ``sumito layouts``, or a position string;
default ``belgian-daisy``), ``win`` (the marbles to push off to win; 0, the default, is the
layout's: 6 standard, 5 small, 2 mini), ``inline_only`` (the reduced game; default ``False``),
``max_plies`` (a draw after this many plies; default 400; 0 is the bound of
:data:`~sumito.rlcore.options.MAX_PLIES`, as OpenSpiel needs a longest game) and ``repetitions``
(a draw on this-fold repetition; default 3, 0 off). A bad one is a one-line ``ValueError``.

Players 0 (Black) and 1 (White) take turns, the side to move of the start position first (Black
in every layout). Actions index the fixed action space of :mod:`sumito.rlcore.actions` and are named
by their notation (``a1a2``, ``e6e8f6``); ``str(state)`` is the position string. Rewards come at
the end only: +1 to the winner, −1 to the loser, 0 to both for a draw (zero-sum). The game ends by
the engine's rules (:func:`sumito.games.abalone.game.judge`), as :class:`~sumito.games.abalone.Game` ends it.

The observation tensor is :meth:`ArrayGame.observe <sumito.rlcore.core.ArrayGame.observe>`'s planes
for the observing player, flat as OpenSpiel keeps tensors, ``(rows, rows, 10)`` in the observer's
``dict["observation"]``; the observation string is the position string and the observer. The game
has perfect information and the planes hold all the rules look at (the repetition count and the ply
counters included), so the information state tensor is the observation tensor; the information
state string is the actions played, as OpenSpiel's perfect-recall strings of public-information
games are.

``state.undo_action(player, action)`` takes back the last action (the engine's unmake-move kernel).
It is a Python method: OpenSpiel's C++ side does not forward ``UndoAction`` to a Python game (its
``random_sim_test`` has no undo check either; ``tests/test_rl_openspiel.py`` does OpenSpiel's own
undo check through the test's ``state_checker_fn``), so the state answers ``history()``,
``history_str()``, ``move_number()`` and ``is_initial_state()`` from its own list of actions, which
an undo shortens; the C++ copy of the history (``full_history()``, and what OpenSpiel's C++
algorithms read) is not.

A state is an :class:`~sumito.rlcore.core.ArrayGame`: OpenSpiel clones a Python state by deep-copying
its attributes, which here is :meth:`ArrayGame.clone`, and serializes it (``serialize_game_and_state``,
pickling) by pickling them, which here is the actions played from the start, replayed on loading.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from sumito.games.abalone import BLACK, DrawRules, Position
from sumito.games.abalone.geometry import COLOR_NAMES
from sumito.rlcore import MissingExtraError
from sumito.rlcore.core import CHANNELS, ArrayGame
from sumito.rlcore.options import MAX_PLIES, EnvOptionError, EnvOptions

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ModuleNotFoundError as exc:
    raise MissingExtraError(
        f"sumito.rl.register_openspiel needs OpenSpiel ({exc.name} is not installed): pip install 'sumito[rl]'"
    ) from None

SHORT_NAME = "python_sumito_abalone"
#: the parameters and their defaults (OpenSpiel's parameters cannot be None: 0 stands for "the default" or "off")
DEFAULTS: dict[str, Any] = {
    "layout": "belgian-daisy",
    "win": 0,
    "inline_only": False,
    "max_plies": 400,
    "repetitions": 3,
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Sumito Abalone",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class AbaloneGame(pyspiel.Game):
    """The game (see the module's docstring); ``params`` as OpenSpiel passes them, missing ones defaulted."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**DEFAULTS, **(params or {})}
        unknown = sorted(set(params) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"{SHORT_NAME} has no parameter {unknown[0]!r}; it takes: {', '.join(DEFAULTS)}")
        for name in ("win", "max_plies", "repetitions"):  # None, from Python, is what 0 is in a game string
            if params[name] is None:
                params[name] = 0
        try:
            options = EnvOptions.build(
                layout=params["layout"],
                max_plies=params["max_plies"] or MAX_PLIES,
                win=params["win"] or None,
                inline_only=params["inline_only"],
                repetitions=params["repetitions"] or None,
                reward="result",
                opening_plies=0,
                illegal_action="error",
                illegal_reward=-1.0,
                render_mode=None,
                render_modes=(),
            )
        except EnvOptionError as exc:
            # OpenSpiel's parameters cannot be None: where the options take None, these take 0
            raise ValueError(f"{SHORT_NAME}: {str(exc).replace(' or None', ' or 0')}") from None
        self.start = options.start_position()
        self.rules: DrawRules = options.rules
        self._initial = ArrayGame(self.start, self.rules)
        assert self.rules.max_plies is not None
        info = pyspiel.GameInfo(
            num_distinct_actions=self._initial.space.n,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.rules.max_plies,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> AbaloneState:
        return AbaloneState(self)

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> BoardObserver | IIGObserverForPublicInfoGame:
        if isinstance(iig_obs_type, Mapping):  # game.make_observer(params): OpenSpiel passes the params alone
            iig_obs_type, params = None, iig_obs_type
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(self._initial.rows, params)
        if iig_obs_type.public_info:  # the information state: the board's planes, the actions as its string
            return InformationStateObserver(self._initial.rows, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class _Play:
    """The one attribute of a state: its array game and the actions played from the game's start.

    OpenSpiel clones a Python state by deep-copying each attribute (here :meth:`ArrayGame.clone`,
    not a walk through the action space's tables) and serializes it by pickling them (here the
    start, the rules and the actions, replayed on loading)."""

    __slots__ = ("actions", "before", "game")

    def __init__(self, game: ArrayGame, actions: list[int], before: tuple[int, ...] = ()) -> None:
        self.game = game
        self.actions = actions
        self.before = before  # hashes of positions before the start, for the repetition rule

    def __deepcopy__(self, memo: dict) -> _Play:
        return _Play(self.game.clone(), self.actions.copy(), self.before)

    def __reduce__(self) -> tuple:
        return (_replay, (self.game.start, self.game.rules, self.before, tuple(self.actions)))


def _replay(start: Position, rules: DrawRules, before: tuple[int, ...], actions: tuple[int, ...]) -> _Play:
    play = _Play(ArrayGame(start, rules), [], before)
    play.game.reset(history=before)
    for action in actions:
        play.game.step(action)
        play.actions.append(int(action))
    return play


class AbaloneState(pyspiel.State):
    """A state of :class:`AbaloneGame`: its array game is ``state.array_game``."""

    def __init__(self, game: AbaloneGame) -> None:
        super().__init__(game)
        self._play = _Play(game._initial.clone(), [])

    @property
    def array_game(self) -> ArrayGame:
        return self._play.game

    def position(self) -> Position:
        """The current position (the engine's value type)."""
        return self._play.game.position()

    def current_player(self) -> int:
        game = self._play.game
        return pyspiel.PlayerId.TERMINAL if game.outcome is not None else game.side - BLACK

    def _legal_actions(self, player: int) -> list[int]:
        return self._play.game.legal_actions().tolist()

    def _apply_action(self, action: int) -> None:
        self._play.game.step(action)
        self._play.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._play.game.space.notation(action)

    def undo_action(self, player: int, action: int) -> None:
        """Take back ``action``, the last action played, which ``player`` played."""
        play = self._play
        if not play.actions:
            raise ValueError(f"{SHORT_NAME}: no action to undo: the state is the game's initial state")
        mover = 2 - play.game.side  # the player who played the last action
        if (player, action) != (mover, play.actions[-1]):
            raise ValueError(f"{SHORT_NAME}: undo_action({player}, {action}), but the last action was "
                             f"{play.actions[-1]}, by player {mover}")
        play.game.undo()
        play.actions.pop()

    # The C++ history does not shrink on a Python undo: the state's own list of actions answers instead.
    def history(self) -> list[int]:
        return list(self._play.actions)

    def history_str(self) -> str:
        return ", ".join(map(str, self._play.actions))

    def move_number(self) -> int:
        return len(self._play.actions)

    def is_initial_state(self) -> bool:
        return not self._play.actions

    def is_terminal(self) -> bool:
        return self._play.game.outcome is not None

    def returns(self) -> list[float]:
        outcome = self._play.game.outcome
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == BLACK else [-1.0, 1.0]

    def __str__(self) -> str:
        return self._play.game.position().to_string()


class BoardObserver:
    """The observation (OpenSpiel's PyObserver interface): the planes of :meth:`ArrayGame.observe`
    for the observing player, flat in ``tensor`` and shaped ``(rows, rows, 10)`` in ``dict["observation"]``."""

    def __init__(self, rows: int, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"{SHORT_NAME} takes no observation parameters, not {dict(params)!r:.80}")
        self.tensor = np.zeros(rows * rows * CHANNELS, np.float32)
        self.dict = {"observation": self.tensor.reshape(rows, rows, CHANNELS)}

    def set_from(self, state: AbaloneState, player: int) -> None:
        state.array_game.observe(player + BLACK, out=self.dict["observation"])

    def string_from(self, state: AbaloneState, player: int) -> str:
        return f"{state} ({COLOR_NAMES[player + BLACK]} observes)"


class InformationStateObserver(BoardObserver):
    """The information state: the observation's planes (the game has perfect information), and the
    actions played as its string (perfect recall, as OpenSpiel's public-information games give it)."""

    def string_from(self, state: AbaloneState, player: int) -> str:
        return state.history_str()


def state_at(game: AbaloneGame, history: Iterable[int] = ()) -> AbaloneState:
    """The initial state of ``game`` when the positions before its start (their Zobrist hashes,
    oldest first, as a player's ``history``) count for the repetition rule. The start itself must
    not already be drawn by them (a game the arena would have ended)."""
    state = game.new_initial_state()
    before = tuple(int(h) for h in history)
    state._play.before = before
    state.array_game.reset(history=before)
    return state


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, AbaloneGame)
