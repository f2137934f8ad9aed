"""``python -m sumito``: the same as the ``sumito`` command."""

from sumito.cli import run

run()
