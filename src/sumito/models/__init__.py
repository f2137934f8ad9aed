"""The models of learning: everything a player needs to load and run a learned evaluation, and the maths
that trains it, with no training loop.

- :mod:`.network` — the MLP value network, its file format and the built-in networks;
- :mod:`.td` — TD(λ) updates (online with traces, offline λ-returns) and the risk-sensitive transform;
- :mod:`.game` — the small game interface the trainer sees (afterstates, TD-Leaf's leaf);
- :mod:`.policy` — how a one-ply network picks its move (the Abalearn readings);
- :mod:`.abalone_encodings`, :mod:`.abalone_game` — Abalone's state encodings (Abalearn 1/2/3) and Abalone
  as a learning game; :mod:`.learned` — a network as the search's evaluation; :mod:`.tdleaf` — TD-Leaf's
  search;
- :mod:`.backgammon` — backgammon's encodings, learning game and Wiering's modular network.

The training regimes, opponents, runs on disk and commands are the lab's (:mod:`sumito.learn`), above the
players and the arena.
"""
