"""The rules of each game, at the ground layer: Abalone's in :mod:`sumito.games.abalone`, backgammon's in
:mod:`sumito.games.backgammon`. Each game's learning models, players, matches and runs plug into the same
:mod:`sumito.models`, :mod:`sumito.players`, :mod:`sumito.arena` and :mod:`sumito.learn` (docs/architecture.md)."""
