"""Sumito: an exact, fast Abalone engine and self-play learning lab."""

__version__ = "0.1.0"
