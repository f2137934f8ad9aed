"""The zero learner's models: a policy-value network over the board's fixed action space
(:mod:`~sumito.models.zero.network`), the tree search that plays it (:mod:`~sumito.models.zero.search`:
a Gumbel root search with sequential halving, or PUCT) and a self-play game as one compiled call
(:mod:`~sumito.models.zero.selfplay`). It learns from the rules alone: nothing here reads a solved table.
"""
