"""Train an agent with an existing library on the mini board, then play it against ``random`` in Sumito's arena.

    pip install -e ".[rl]" torch==2.13.0 stable-baselines3==2.9.2 sb3-contrib==2.9.2
    python examples/train_maskable_ppo.py --steps 100000 --games 200 --seed 1

The library is sb3-contrib's ``MaskablePPO`` (PPO that samples only legal actions, from the
environment's mask), on Sumito's Gymnasium environment (``sumito.rl.single_agent_env``): the mini
board (19 cells, 5 marbles a side, 2 pushed off to win), the agent's colour drawn at every reset,
``random`` as the opponent, the Abalearn per-marble rewards (+1 for a marble pushed off, −1 for one
lost) and the environment's default draw rules (threefold repetition, 400 plies). The network sees
the observation planes, flattened, through a two-layer MLP (64 units each).

The trained agent then joins Sumito's arena as a player kind of its own, ``ppo:model=FILE``
(registered here, in this process, so the arena plays its games in this process too), and plays
``--games`` games against ``random`` from the mini board's start, colours alternating, each game
pair from its own random 2-ply opening; ``random`` against ``random`` in the same games is the
baseline. Both are printed as outright wins with their 95% intervals.

PyTorch runs on one thread here (``--torch-threads``, default 1): a 64-unit network gains nothing from
more, and threads stall when another program holds a core (docs/rl.md has the rates).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.callbacks import BaseCallback

import sumito.rl as rl
from sumito.arena.executor import InlineExecutor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair
from sumito.arena.ratings import score_interval
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players.base import Option, PlayerBase, PlayerKind, register
from sumito.progress import Progress


class FlatPlanes(gymnasium.ObservationWrapper):
    """The observation planes alone, flattened (the mask goes to the learner through ActionMasker)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        shape = env.observation_space["observation"].shape
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (int(np.prod(shape)),), dtype=np.float32)

    def observation(self, observation: dict) -> np.ndarray:
        return observation["observation"].reshape(-1)


def make_env(seed: int) -> gymnasium.Env:
    env = rl.single_agent_env("random", color="random", layout="mini", reward="marbles")
    env.reset(seed=seed)
    return ActionMasker(FlatPlanes(env), lambda e: e.unwrapped.action_masks())


class PPOPlayer(PlayerBase):
    """A trained MaskablePPO model as a Sumito player: its most likely legal action."""

    def __init__(self, model: str) -> None:
        self.name = f"ppo:model={model}"
        self.model = MaskablePPO.load(model, device="cpu")
        self.game: rl.ArrayGame | None = None

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        if self.game is None or self.game.variant.side != position.variant.side:
            self.game = rl.ArrayGame(position)
        self.game.reset(position, history=history or (), draw=draw)  # the repetition and ply planes as in training
        planes = self.game.observe(position.side_to_move).reshape(-1)
        action, _ = self.model.predict(planes, action_masks=self.game.mask.astype(bool), deterministic=True)
        return self.game.space.action_to_move(int(action), position)


class ShowProgress(BaseCallback):
    """Training's progress on stderr, by Sumito's reporter (a bar on a terminal, else a line every few seconds)."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress

    def _on_step(self) -> bool:
        self.progress.update(self.num_timesteps)
        return True  # go on training


register(PlayerKind("ppo", PPOPlayer, {"model": Option(str, None, "a MaskablePPO model file", path=True)},
                    "a MaskablePPO agent trained by examples/train_maskable_ppo.py"))


def outright(results: list) -> str:
    s = summarize_pair(results)
    _, low, high = score_interval(s.wins, 0, s.games - s.wins)
    return (f"won {s.wins} of {s.games} outright ({s.wins / s.games:.0%}, 95% interval {low:.0%}–{high:.0%}), "
            f"{s.draws} drawn, {s.losses} lost; marbles {s.marbles_won}:{s.marbles_lost}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="training steps (the agent's moves)")
    parser.add_argument("--games", type=int, default=200, help="arena games against random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo-mini"))
    parser.add_argument("--torch-threads", type=int, default=1, help="PyTorch's threads (default 1)")
    args = parser.parse_args()
    if not 1 <= args.torch_threads <= 256:
        parser.error(f"--torch-threads must be from 1 to 256, not {args.torch_threads}")
    torch.set_num_threads(args.torch_threads)
    args.out.mkdir(parents=True, exist_ok=True)
    model_file = args.out / "model.zip"

    start = time.perf_counter()
    model = MaskablePPO("MlpPolicy", make_env(args.seed), seed=args.seed, verbose=0, device="cpu",
                        policy_kwargs=dict(net_arch=[64, 64]))
    with Progress("MaskablePPO", args.steps, "steps") as progress:
        model.learn(total_timesteps=args.steps, callback=ShowProgress(progress))
    model.save(model_file)
    seconds = time.perf_counter() - start
    print(f"trained MaskablePPO for {args.steps} steps in {seconds:.1f} s ({args.steps / seconds:.0f} steps/s): "
          f"{model_file}")

    settings = ArenaSettings.from_layout("mini", seed=args.seed, opening_plies=2)
    for player in (f"ppo:model={model_file}", "random"):
        results = []
        with Progress(f"{player} against random", args.games, "games") as progress:
            for _, result in InlineExecutor().run(play_game, schedule([player, "random"], args.games, settings)):
                results.append(result)
                progress.update(advance=1)
        print(f"{player} against random: {outright(results)}")


if __name__ == "__main__":
    main()
