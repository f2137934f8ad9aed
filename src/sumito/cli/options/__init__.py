"""What each ``sumito`` command accepts: its arguments, their defaults and help, one module for each
module of :mod:`sumito.cli` that runs commands, under the same name.

Light, on purpose: these import the standard library and Sumito's light modules only (:mod:`sumito.bounds`,
:mod:`sumito.defaults`, :mod:`sumito.cliargs`, the layouts and draw rules), so that ``sumito COMMAND --help``
costs about what the interpreter's start does. ``tests/test_startup.py`` checks that none loads numpy.
"""
