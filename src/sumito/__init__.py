"""Sumito: an exact, fast Abalone engine and self-play learning lab.

Importing the package loads nothing but this file: the rules, the players and numba load with the modules
that use them (numba through :mod:`sumito.jit`), so that a command pays only for what it runs.
"""

__version__ = "0.1.0"
