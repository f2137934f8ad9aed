"""Environment steps a second: the PettingZoo, Gymnasium and OpenSpiel wrappers beside Sumito's own loops.

Run:  python bench/bench_rl.py [--steps 20000] [--layout belgian-daisy] [--seed 1]

Every loop plays uniformly random legal actions (the legal actions read from the mask or list
each step, as an agent would) from the start of ``--layout`` under the environments' default rules
(threefold repetition, a draw after 400 plies), starting a new game whenever one ends, for
``--steps`` steps, on one core, after a warm-up run of each loop (numba compiles once). The loops:

* ``engine.Game``: Sumito's Python API (a ``Move`` and a ``Position`` per ply), for reference;
* ``ArrayGame``: the array game the wrappers share (one kernel call a ply), without observations;
* ``ArrayGame + planes``: the same with the observation planes of the side to move each step —
  **the raw loop**: what every wrapper does, without the library's API around it;
* ``PettingZoo AEC``: ``sumito.rl.abalone_env`` (order-enforcing wrapper, as PettingZoo's own
  environments come), ``observe`` + ``step`` per agent turn; and its unwrapped ``AbaloneEnv``;
* ``Gymnasium``: ``single_agent_env`` against ``random`` (a step is the agent's ply and the
  opponent's answer: the plies a second are given too);
* ``OpenSpiel``: ``python_sumito_abalone``, ``legal_actions`` + ``observation_tensor`` +
  ``apply_action`` per ply.

Each wrapper's ratio is its steps a second over the raw loop's (the target: within 3×, and
at least 20,000 AEC steps a second on one core).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable

import numpy as np

from sumito.games.abalone import Game, Position
from sumito.rlcore.core import CHANNELS, DEFAULT_RULES, ArrayGame


def engine_loop(layout: str, steps: int, rng: np.random.Generator) -> int:
    game = Game(Position.start(layout), DEFAULT_RULES)
    for _ in range(steps):
        if game.is_over():
            game = Game(Position.start(layout), DEFAULT_RULES)
        legal = game.legal_moves()
        game.push(legal[rng.integers(len(legal))])
    return steps


def array_loop(layout: str, steps: int, rng: np.random.Generator, planes: bool = False) -> int:
    game = ArrayGame(Position.start(layout), DEFAULT_RULES)
    out = np.empty((game.rows, game.rows, CHANNELS), dtype=np.float32)
    for _ in range(steps):
        if game.is_over:
            game.reset()
        if planes:
            game.observe(game.side, out)
        legal = np.flatnonzero(game.mask)
        game.step(int(legal[rng.integers(len(legal))]))
    return steps


def aec_loop(layout: str, steps: int, rng: np.random.Generator, unwrapped: bool = False) -> int:
    import sumito.rl as rl

    env = rl.abalone_env(layout)
    if unwrapped:
        env = env.unwrapped
    env.reset(seed=0)
    done = 0
    while done < steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        done += 1
    return done


def gym_loop(layout: str, steps: int, rng: np.random.Generator) -> tuple[int, int]:
    import sumito.rl as rl

    env = rl.single_agent_env("random", layout=layout)
    obs, _ = env.reset(seed=0)
    plies = 0
    for _ in range(steps):
        legal = np.flatnonzero(obs["action_mask"])
        before = env.game.plies
        obs, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        plies += env.game.plies - before
        if terminated or truncated:
            obs, _ = env.reset()
    return steps, plies


def openspiel_loop(layout: str, steps: int, rng: np.random.Generator) -> int:
    import pyspiel

    import sumito.rlcore.openspiel_game  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_sumito_abalone", {"layout": layout})
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        state.observation_tensor(state.current_player())
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    return steps


def timed(fn: Callable[[], int | tuple[int, int]]) -> tuple[float, int | tuple[int, int]]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--layout", default="belgian-daisy")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"RL environment benchmark — {platform.machine()}, python {platform.python_version()}, one core; "
          f"{args.steps} steps of random legal actions from {args.layout}\n")
    loops: list[tuple[str, Callable[[int, np.random.Generator], int | tuple[int, int]]]] = [
        ("engine.Game (Python API)", lambda n, r: engine_loop(args.layout, n, r)),
        ("ArrayGame", lambda n, r: array_loop(args.layout, n, r)),
        ("ArrayGame + planes (raw loop)", lambda n, r: array_loop(args.layout, n, r, planes=True)),
        ("PettingZoo AEC", lambda n, r: aec_loop(args.layout, n, r)),
        ("PettingZoo AEC, unwrapped", lambda n, r: aec_loop(args.layout, n, r, unwrapped=True)),
        ("Gymnasium vs random", lambda n, r: gym_loop(args.layout, n, r)),
        ("OpenSpiel", lambda n, r: openspiel_loop(args.layout, n, r)),
    ]
    rows = []
    raw = None
    for name, loop in loops:
        try:
            loop(200, np.random.default_rng(args.seed))  # warm-up: numba compiles or loads its cache
        except ImportError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        seconds, result = timed(lambda loop=loop: loop(args.steps, np.random.default_rng(args.seed)))
        steps, plies = result if isinstance(result, tuple) else (result, result)
        rate = steps / seconds
        if name.endswith("(raw loop)"):
            raw = rate
        rows.append((name, rate, plies / seconds))
    print(f"{'loop':34s} {'steps/s':>10s} {'plies/s':>10s} {'raw loop / it':>14s}")
    for name, rate, ply_rate in rows:
        ratio = f"{raw / rate:.2f}x" if raw else "-"
        print(f"{name:34s} {rate:10,.0f} {ply_rate:10,.0f} {ratio:>14s}")


if __name__ == "__main__":
    main()
