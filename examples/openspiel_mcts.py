"""Abalone in OpenSpiel: OpenSpiel's MCTS against its random bot, then Sumito's ``openspiel-mcts``
player against Sumito's ``random`` in Sumito's arena. Needs ``pip install 'sumito[rl]'``.

    python examples/openspiel_mcts.py
"""

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

import sumito.rl
from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair

game = pyspiel.load_game(f"{sumito.rl.register_openspiel()}(layout=mini,inline_only=True)")
print(game, "-", game.num_distinct_actions(), "actions")
rng = np.random.RandomState(7)
for i in range(4):
    bot = mcts.MCTSBot(game, 2.0, 100, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    random_bot = pyspiel.make_uniform_random_bot(1 - i % 2, 7 + i)
    bots = [bot, random_bot] if i % 2 == 0 else [random_bot, bot]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    print(f"game {i + 1}: MCTS plays {'Black' if i % 2 == 0 else 'White'}, returns {returns}")

settings = ArenaSettings.from_layout("mini", inline_only=True, seed=1)
tasks = schedule(["openspiel-mcts:sims=100", "random"], 4, settings)
results = [result for _, result in make_executor(1).run(play_game, tasks)]
s = summarize_pair(results)
print(
    f"openspiel-mcts:sims=100 against random in the arena: {s.wins} won, {s.draws} drawn, {s.losses} lost; "
    f"{s.marbles_won} marbles pushed off, {s.marbles_lost} lost"
)
