"""Backgammon's players: pubeval (:mod:`.pubeval`), GNU Backgammon as an expert (:mod:`.gnubg_expert`), and
the spec-built players of ``sumito bg`` (:mod:`.players`: random, pubeval, gnubg, td, human)."""
