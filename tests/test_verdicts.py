"""docs/reproductions.md's glance table is experiments/verdicts.py's: every label computed from the committed
rows by the written rules (with their amendment of 2026-12-01), and the rules' arithmetic as the page states it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import verdicts as v
from verdict_claims import CLAIMS, IA, T2


def test_every_label_on_the_page_is_the_scripts():
    text = v.PAGE.read_text(encoding="utf-8")
    written, computed = v.labels(text), v.labels(v.page_with_table(text, v.table()))
    assert len(written) == len(computed) == len(CLAIMS)
    differ = [(claim, page, ours) for (claim, page), (_, ours) in zip(written, computed) if page != ours]
    assert not differ, f"labels on the page that the rules do not give (claim, page, rules): {differ}"
    # the rest of each row (the numbers, the tests) too: `python experiments/verdicts.py` rewrites it
    assert v.page_with_table(text, v.table()) == text


def claim(*held: bool, **extra) -> v.Claim:
    tests = tuple(v.Recorded(f"test {k}", ok) for k, ok in enumerate(held))
    return v.Claim("p", "t", "c", "n", tests, "cmd", **extra)


def test_the_rules_arithmetic():
    assert v.judge(claim(True, True)).label == v.REPRODUCES
    assert v.judge(claim(True, False)).label == v.PARTLY  # a subset of its conditions
    assert v.judge(claim(False, False)).label == v.DOES_NOT
    # a condition of the claim not run here keeps it from reproducing
    assert v.judge(claim(True, untested="the large network")).label == v.PARTLY
    assert v.judge(claim(True, recorded="no rows")).marks == ("not recomputed",)


def test_a_fitted_claim_must_hold_outright_and_on_unseen_seeds():
    inside = v.Inside(T2, IA, 2000, 0.76)  # Table 2's 76% inside the win column's interval at 2,000 games
    assert inside(v.Ctx())[0] and not inside(v.Ctx(v.OUTRIGHT))[0]  # and outside the outright column's
    plain = v.Claim("Abalearn", "Table 2", "c", "76%", (inside,), "cmd")
    fitted = v.Claim("Abalearn", "Table 2", "c", "76%", (inside,), "cmd", fitted="stage 3", unseen=2007)
    assert v.judge(plain).label == v.REPRODUCES
    judged = v.judge(fitted)
    assert judged.label == v.PARTLY and "fitted" in judged.marks
    assert any(w.startswith("outright: does not") for w in judged.why)


def test_the_kinder_labels_are_gone():
    """The labels that once read kinder than the rules, as the rules give them now."""
    by_claim = {c.claim: v.judge(c).label for c in CLAIMS}
    assert by_claim["Method I(a) (Abalearn 3 features) beats Method I, and wins 68% → 79%"] == v.PARTLY
    assert by_claim["κ = −1 learns best by self-play"] == v.DOES_NOT
    assert by_claim["κ = 0 does not learn to push and loses most games"] == v.DOES_NOT
    assert by_claim["combined beats single"] == v.DOES_NOT
    assert by_claim["the best agent wins about 90% against the heuristic player"] == v.PARTLY
    assert by_claim["the architectures other than RBF reach about the same strength (80 hidden units vs the small "
                    "network)"] == v.PARTLY


def test_modes_by_the_stated_rule():
    # Method I(a) at 2,000 games on marbles, seeds 2003-2012 (the rows the amendment re-labelled)
    runs = tuple(x / 100 for x in (98, 95, 94, 38, 95, 97, 92, 97, 22, 64))
    assert v.modes(runs) == "7 of 10 runs learned (92.0%–98.0%, median 95.0%); 3 at 22.0%–64.0%, median 38.0%"
    assert v.modes((0.40, 0.50, 0.60, 0.70)) == ""  # no gap of 25 points: one mode
    assert v.modes((0.5,)) == ""


def test_abla_table_1_is_recomputed_from_its_committed_games():
    """The paper's six ABLA games, replayed from the start (runs/abla-exact, abla_tables.py's journal): every
    result as published, no score; computed from the games, not from numbers recorded on the page."""
    six = next(c for c in CLAIMS if c.paper == "ABLA" and c.where == "Table 1")
    judged = v.judge(six)
    assert judged.label == v.PARTLY and "not recomputed" not in judged.marks
    assert judged.why[:2] == ("✓ the results: 6 of 6 as published",
                              "✗ the scores 1–2, 5–4, 3–6, 6–0, 6–0, 2–5: 0 of 6 as published")
    assert len(v.abla_games("abla-exact")) == 6
