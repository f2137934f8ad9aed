"""``python -m sumito``: the same as the ``sumito`` command."""

import sys

from sumito.cli import main

sys.exit(main())
