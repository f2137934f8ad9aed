"""The ``sumito`` commands: each one's name, the module of this package that parses and runs it, and its page.

This table is all the command line imports before it parses: ``sumito --help`` and ``--version`` load no
command's module, and ``sumito COMMAND`` loads only that command's (which imports the layers it uses).
``docs/architecture.md`` shows the same table; a test keeps the two equal.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """One ``sumito`` command."""

    name: str
    #: the module of :mod:`sumito.cli` that declares its arguments (``arguments(parser)``) and runs it
    module: str
    #: the one line ``sumito --help`` shows
    help: str
    #: the documentation page that explains it (under ``docs/``)
    page: str


#: the commands in the groups ``sumito --help`` lists, as a player looks for them
GROUPS: dict[str, tuple[Command, ...]] = {
    "play and watch": (
        Command("play", "play", "play a game in the terminal (you against a player, or any two players)",
                "getting-started.md"),
        Command("serve", "serve", "play in the browser: start the web app on this machine", "web.md"),
        Command("analyse", "analyse",
                "the engine's best moves and scores in a position, or every move of a game scored (its mistakes)",
                "analysis.md"),
        Command("game", "rules", "play one game between two players and print its record", "getting-started.md"),
        Command("engine", "engine", "talk a UCI-like text protocol on stdin/stdout (for GUIs and other programs)",
                "protocol.md"),
    ),
    "compare players": (
        Command("match", "arena", "play N games between two players and report the score, Elo difference and more",
                "arena.md"),
        Command("tournament", "arena",
                "round robin: every pair plays N games; cross table and maximum-likelihood Elo ratings", "arena.md"),
        Command("sprt", "sprt",
                "a sequential probability ratio test: is A at least ELO1 stronger than B, or at most ELO0?",
                "arena.md"),
        Command("games", "arena",
                "list stored games, or export them as records; list the matches and tournaments (runs)", "arena.md"),
        Command("replay", "rules", "replay a game record and show a position from it", "arena.md"),
        Command("players", "rules", "list every player spec of both games with its options and defaults",
                "players.md"),
    ),
    "positions and rules": (
        Command("show", "rules", "draw a position in the terminal", "getting-started.md"),
        Command("moves", "rules", "list the legal moves in notation, one a line", "getting-started.md"),
        Command("layouts", "rules", "list the named starting layouts", "rules.md"),
        Command("perft", "rules", "count the positions DEPTH plies ahead (the last line is the count)",
                "getting-started.md"),
        Command("solve", "solve",
                "solve a small board exactly (the mini board by default), or score players against perfect play",
                "solved.md"),
    ),
    "learn": (
        Command("train", "train", "train a value network by TD(lambda) (Abalearn methods, Wiering's regimes)",
                "lab.md"),
        Command("nnue", "nnue", "make self-play data for the engine's NNUE and train one",
                "lab.md"),
        Command("zero", "zero", "the zero learner: a policy-value network trained by self-play with tree search",
                "zero.md"),
        Command("alphalone-td", "alphalone_td",
                "learn the alphalone player's weights by TD(0) self-play (the Alphalone report, section 3.4)",
                "lab.md"),
        Command("plot", "plot", "draw the learning curves of training runs (PNG or SVG)", "lab.md"),
    ),
    "backgammon": (
        Command("bg", "backgammon", "backgammon: show positions, list plays, play games and matches, train networks",
                "backgammon.md"),
    ),
}

#: every command by name
COMMANDS: dict[str, Command] = {c.name: c for group in GROUPS.values() for c in group}
