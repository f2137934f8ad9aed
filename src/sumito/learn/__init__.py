"""The lab: training regimes and loops (TD(λ), TD-Leaf, Wiering's regimes), opponents and experts, runs on
disk that resume after a kill, the actor–learner, and the ``sumito train``, ``nnue``, ``alphalone-td``,
``plot`` and ``bg`` commands. It sits above the players and the arena (it plays players and evaluates in the
arena); what a player loads — networks, encodings, TD updates — is in :mod:`sumito.models`, below them.
See docs/architecture.md."""
