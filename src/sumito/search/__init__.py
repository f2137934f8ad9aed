"""Search machinery shared by the players: fixed-depth alpha-beta and the engine's PVS."""
