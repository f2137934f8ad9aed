"""The site's Evidence pages (mkdocs.yml's nav): each table of results carries one date and the command that
regenerates it, in one form, right above it; each Evidence page ranks below the manual's pages in the site's
search."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "experiments"))

DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
#: a table's caption: *DATE · what regenerates it*, on its own line right above the table
CAPTION = re.compile(r"^\*(20\d\d-\d\d-\d\d) · (.+)\*$")
#: what a caption may say instead of naming a command: where each row carries its own, or that none does
NO_COMMAND = "no command in the repo regenerates this table"
EACH_ROW = "the command of each row"

#: tables that are not measurements: the readings and factors a design names, limits, the report's own tables
NOT_RESULTS = {
    ("reproductions.md", "| question | the paper says | default (why) | option |"),
    ("reproductions.md", "| factor | levels | the paper |"),
    ("reproductions.md", "| factor | levels |"),
    ("results-alphalone.md", "| choice | the report | the authors' code | ours now (default) | earlier reading "
                             "(option) |"),
    ("reliability.md", "| input | limit | where |"),
    ("reliability.md", "| option | default | at most |"),
    ("reliability.md", "| job | what it records | refused on resume | allowed on resume |"),
    ("reliability.md", "| file | damaged (cut, changed, not a regular file, too large, wrong types or shapes) "
                       "| whole but of another kind |"),
}
#: the Alphalone report's own tables, transcribed for comparison (told apart by the line above them)
PUBLISHED = {
    ("results-alphalone.md", '"White \\ Black", rows White and columns Black):'),
    ("results-alphalone.md", "Table 2 (percentage of Black wins, agent 2 Black against agent 3 White, 10 games a "
                             "cell):"),
}


def nav_pages() -> tuple[list[str], list[str]]:
    """The Use pages (with Home) and the Evidence pages of mkdocs.yml's nav, in order."""
    use: list[str] = []
    evidence: list[str] = []
    part = use
    for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1].splitlines():
        if re.match(r"^  - Evidence:", line):
            part = evidence
        elif re.match(r"^  - \w", line) and not line.startswith("  - Home"):
            part = use
        page = re.search(r"([\w/-]+\.md)\s*$", line)
        if page:
            part.append(page.group(1))
    return use, evidence


def boost(page: str) -> float:
    text = (DOCS / page).read_text(encoding="utf-8")
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    found = re.search(r"^search:\n\s+boost:\s*([\d.]+)", front.group(1), re.M) if front else None
    return float(found.group(1)) if found else 1.0


def tables(text: str):
    """(line number, the line above it that is not blank nor an HTML comment, the header) of every table."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|") and (i == 0 or not lines[i - 1].lstrip().startswith("|")):
            k = i - 1
            while k >= 0 and (not lines[k].strip() or lines[k].lstrip().startswith("<!--")):
                k -= 1
            yield i + 1, lines[k].strip() if k >= 0 else "", line.strip()


def test_evidence_pages_rank_below_the_manuals():
    use, evidence = nav_pages()
    assert "reproductions.md" in evidence and "strength-ledger.md" in evidence and "solved.md" in use
    assert [page for page in evidence if boost(page) >= 1] == []
    assert [page for page in use if boost(page) < 1] == []


def test_every_table_of_results_is_dated_once_with_its_command():
    _, evidence = nav_pages()
    problems = []
    for page in evidence:
        for number, above, header in tables((DOCS / page).read_text(encoding="utf-8")):
            if (page, header) in NOT_RESULTS or (page, above) in PUBLISHED:
                continue
            caption = CAPTION.match(above)
            where = f"{page}:{number} ({header[:50]})"
            if not caption:
                problems.append(f"{where}: no caption *DATE · COMMAND* right above it (found {above[:60]!r})")
            elif len(DATE.findall(above)) != 1:
                problems.append(f"{where}: its caption carries {len(DATE.findall(above))} dates")
            elif "`" not in caption.group(2) and EACH_ROW not in caption.group(2) and NO_COMMAND not in above:
                problems.append(f"{where}: its caption names no command")
    assert problems == []


def test_every_script_a_caption_names_exists():
    import learning_experiments

    _, evidence = nav_pages()
    named = []
    for page in evidence:
        for _, above, _ in tables((DOCS / page).read_text(encoding="utf-8")):
            if CAPTION.match(above):
                named += [(page, command) for command in re.findall(r"`([^`]+)`", above)]
    missing = []
    for page, command in named:
        words = shlex.split(command.replace("cd experiments && ", "cd=experiments "))
        folder = ROOT / "experiments" if words[0] == "cd=experiments" else ROOT
        for k, word in enumerate(words):
            if word in ("python", "python3") and k + 1 < len(words) and words[k + 1].endswith(".py"):
                script = folder / words[k + 1]
                if not script.exists():
                    missing.append(f"{page}: {command}")
                elif script.name == "learning_curves.py" and words[k + 2] not in [*learning_experiments.EXPERIMENTS,
                                                                                     "fig2"]:
                    missing.append(f"{page}: {command} (no such experiment)")
    assert len(named) > 100 and missing == []


def test_the_conversion_goals_verdict_on_the_strength_page_is_the_one_its_rows_give():
    import conversion

    met, lines = conversion.goal()
    text = (DOCS / "strength-ledger.md").read_text(encoding="utf-8")
    goal_row = "| no draw at a cap or by repetition with the engine"
    rows = [line for line in text.splitlines() if line.startswith(goal_row)]
    assert len(rows) == 1, "the goal's row of the search options' targets"
    shown = rows[0].rstrip(" |").rsplit("|", 1)[1].strip()
    assert shown == ("**met**" if met else "**not met**"), lines
