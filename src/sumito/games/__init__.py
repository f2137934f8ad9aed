"""The rules of the games other than Abalone (whose rules live in :mod:`sumito.games.abalone`), at the ground
layer: each game's learning models, players, matches and runs plug into the same :mod:`sumito.models`,
:mod:`sumito.players`, :mod:`sumito.arena` and :mod:`sumito.learn` as Abalone's (docs/architecture.md)."""
