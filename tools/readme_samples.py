"""The sample outputs and stated times of the README and the documentation site (docs/*.md), made by running
what they describe, so they cannot go stale.

Run:  python tools/readme_samples.py --write            # re-run every sample; write samples and times
      python tools/readme_samples.py --check            # compare (what tests/test_readme.py does)
      python tools/readme_samples.py --measure cold     # time the first game, cold and warm (bench/bench_cold_start.py)
      python tools/readme_samples.py --check-training   # re-run the lab's first training command (a minute)
      python tools/readme_samples.py --measure suite    # time the test suite and its fast subset
      python tools/readme_samples.py --measure kernels  # the whole suite under each OpenBLAS CPU kernel
      python tools/readme_samples.py --measure rates    # bg train and the PPO example from a fresh start

Three kinds of marks, in README.md and in every page docs/*.md (a sample is marked once, wherever it is; a
time or a figure may be stated on several pages):

- ``<!-- sample NAME -->`` on the line before a fenced block: the block is ``$ COMMAND`` and what the
  command prints, for the sample ``NAME`` of :data:`SAMPLES` (run in a temporary folder, with the
  engine's default threads, as a reader runs it: a sample that searches says ``threads=1`` in its spec or
  ``setoption name Threads value 1`` in its session, since the moves depend on the threads). ``--check``
  compares it with a fresh run, times and node counts aside (they vary with the machine), everything
  else (moves, scores, lines, results) exactly.
- ``<!-- time NAME -->…<!-- /time -->`` around a stated time: the text comes from ``docs/timings.json``,
  which ``--measure`` writes with the date, the commit and the machine (and then rewrites the marks);
  ``--check`` requires every page to say what the file says, so that a time stated anywhere is always one
  that was measured.
- ``<!-- figure NAME -->…<!-- /figure -->`` around a figure of the lab's first training example: the text
  comes from the committed runs of ``runs/readme-seeds`` (:func:`training_figures`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

import sumito.jit
from sumito.learn.bands import interval_estimate
from sumito.learn.plot import load_curve
from sumito.procs import SEARCH_THREADS_ENV

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"  # the documentation site's pages (mkdocs.yml), checked like the README
TIMINGS = ROOT / "docs" / "timings.json"
READ_ME_SEEDS = ROOT / "runs" / "readme-seeds"  # experiments/readme_seeds.py's runs, committed
DURATIONS = ROOT / "tests" / "durations.json"  # each test's seconds in the last measured full run


@dataclass(frozen=True)
class Sample:
    command: str  # as the page shows it, after "$ "
    setup: tuple[str, ...] = ()  # sumito commands run first, in the same folder (their output is not shown)
    stdin: str | None = None
    head: int | None = None  # keep the first ``head`` and the last ``tail`` lines, "…" between
    tail: int = 0
    env: dict[str, str] = field(default_factory=dict)


SAMPLES: dict[str, Sample] = {
    "analyse-position": Sample("sumito analyse --moves a1b2 i5h5 --depth 7 --top 2 --engine engine:threads=1"),
    "analyse-game": Sample(
        "sumito analyse game.txt --depth 4 --engine engine:threads=1",
        setup=("sumito game --black engine:depth=2,threads=1 --white random:seed=4 --max-plies 40 --out game.txt"
               " --quiet",),
        head=5, tail=2,
    ),
    "protocol-random": Sample(
        "sumito engine --player random:seed=3",
        stdin="position startpos moves c3d3\ngo movetime 500\ngo depth 4\nisready\nquit\n",
    ),
    "protocol-engine": Sample(
        "sumito engine",
        stdin="setoption name Threads value 1\nsetoption name MultiPV value 2\nposition startpos moves a1b2\n"
              "go depth 6\nquit\n",
        head=8, tail=4,
    ),
    "match": Sample("sumito match random:seed=1 random -n 20 --layout small --seed 1 --db match.sqlite --quiet"),
}

# what varies from run to run or machine to machine: times, rates, node counts, the archive's path;
# the spaces before a number go with it, since a table right-aligns it ("    21 µs" and "     9 µs")
VOLATILE = [
    (re.compile(r" *\b\d[\d,]*(\.\d+)? ?(s|ms|µs)\b"), " <time>"),
    (re.compile(r" *\b\d[\d,]* nodes/s"), " <rate>"),
    (re.compile(r" *\b\d[\d,]* nodes\b"), " <nodes>"),
    (re.compile(r"\b(nodes|nps|time) \d+"), r"\1 <n>"),
    (re.compile(r"stored in \S+"), "stored in <db>"),
]
SAMPLE_MARK = re.compile(r"<!-- sample ([\w-]+) -->\n```[^\n]*\n(.*?)```", re.S)
TIME_MARK = re.compile(r"<!-- time ([\w-]+) -->(.*?)<!-- /time -->", re.S)
FIGURE_MARK = re.compile(r"<!-- figure ([\w-]+) -->(.*?)<!-- /figure -->", re.S)


def run_sample(sample: Sample) -> str:
    """``$ COMMAND`` and its output, as the page shows it."""
    env = dict(os.environ, SUMITO_COMPILE_NOTICE="0", COLUMNS="120", **sample.env)
    env.pop(SEARCH_THREADS_ENV, None)  # the engine's own default, as a reader's shell has it: a sample that
    # searches says its threads in its command (a spec's threads=1, setoption name Threads), as the reader runs it
    with tempfile.TemporaryDirectory(prefix="sumito-sample-") as folder:
        env["XDG_DATA_HOME"] = folder  # the archive of `sumito game`/`match` goes to the temporary folder
        for setup in sample.setup:
            subprocess.run(_argv(setup), cwd=folder, env=env, check=True, capture_output=True, text=True)
        if sample.stdin is not None:
            lines = _session(_argv(sample.command), sample.stdin, folder, env)
        else:
            done = subprocess.run(_argv(sample.command), cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=600)
            if done.returncode != 0:
                raise SystemExit(f"{sample.command}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
            lines = done.stdout.rstrip("\n").splitlines()
    lines = [line.rstrip() for line in lines]  # a table padded to the terminal's width
    if sample.head is not None and len(lines) > sample.head + sample.tail + 1:
        lines = [*lines[: sample.head], "…", *(lines[-sample.tail :] if sample.tail else [])]
    return f"$ {sample.command}\n" + "\n".join(lines) + "\n"


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "sumito", command
    return [sys.executable, "-m", "sumito", *words[1:]]


def _session(argv: list[str], stdin: str, folder: str, env: dict[str, str]) -> list[str]:
    """A protocol session as a GUI's log shows it: each command typed, then its answers (a ``go``
    answers until ``bestmove`` or an error, ``isready`` with ``readyok``; the rest answer nothing)."""
    proc = subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    transcript: list[str] = []
    try:
        for command in stdin.splitlines():
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
            if command == "quit":
                break
            transcript.append(command)
            if command.startswith(("go", "isready")):
                while True:
                    answer = proc.stdout.readline().rstrip("\n")
                    if not answer:
                        raise SystemExit(f"{shlex.join(argv)}: no answer to {command!r}")
                    transcript.append(answer)
                    if answer.startswith(("bestmove", "readyok", "info string error")):
                        break
        proc.wait(timeout=60)
    finally:
        proc.kill()
    return transcript


def normalise(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def pages() -> list[Path]:
    """The files whose marks are checked: README.md, then docs/*.md in name order."""
    return [README, *sorted(DOCS.glob("*.md"))]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


def _timings() -> dict:
    """What docs/timings.json holds (nothing yet: empty)."""
    return json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}


def timing_texts() -> dict[str, str]:
    """The time marks' texts, from docs/timings.json."""
    data = _timings()
    texts: dict[str, str] = {}
    cold = data.get("cold")
    if cold:
        texts["first-game-cold"] = f"{cold['first_game_cold_s']:.1f} seconds"  # as the install leaves it
        texts["first-game-warm"] = f"{cold['first_game_warm_s']:.1f} seconds"
        # what the compile adds to a real `pip install -e .` (--pip), else the compile step's own time
        extra = (cold["pip_install_s"] - cold["pip_install_no_precompile_s"] if "pip_install_s" in cold
                 else cold["install_compile_s"])
        texts["install-compile"] = f"{extra:.0f} seconds"
        # a first command that compiles (SUMITO_PRECOMPILE=0, a changed source): the compile notice's figure
        texts["compile"] = f"{cold['first_game_no_precompile_s'] - cold['first_game_warm_s']:.0f} seconds"
        texts["first-game-no-precompile"] = f"{cold['first_game_no_precompile_s']:.0f} seconds"
    suite = data.get("suite")
    if suite:
        texts["suite"] = f"{suite['all_s'] / 60:.0f} minutes"
        texts["suite-fast"] = f"{suite['fast_s'] / 60:.1f} minutes"
        texts["suite-count"] = f"{suite['all_passed']:,} tests"
        # the GNU Backgammon player's tests need the optional gnubg extra and skip without it
        texts["suite-gnubg"] = f"{'with' if suite.get('gnubg_nn') else 'without'} the optional `gnubg` extra"
    runs = data.get("kernels", {}).get("runs", {})
    clean = [core if run["picked"] == core else f"{core} (its {run['picked']} kernel in this build)"
             for core, run in runs.items()]  # a run with a failure is never recorded (_run_suite)
    if clean:
        texts["suite-kernels"] = " and ".join([", ".join(clean[:-1]), clean[-1]] if len(clean) > 1 else clean)
    rates = data.get("rates")
    if rates:
        texts["bg-train-fresh"] = f"{rates['bg_train_fresh']['games_per_min']:,} games a minute"
        ppo = rates.get("ppo", {})
        for key, run in ppo.items():  # threads_1 is the example's default; the other, PyTorch's one a core
            name = "ppo-steps" if key == "threads_1" else "ppo-steps-every-core"
            texts[name] = f"{run['steps_per_s']:,} steps a second"
    return texts


def _seed_of(run: Path) -> int:
    return int(run.name[1:])


def training_figures(folder: Path | None = None) -> dict[str, str]:
    """The figure marks' texts for the lab's first example (docs/lab.md), from the committed runs of
    ``experiments/readme_seeds.py`` (one folder ``s<seed>`` a seed, each with its ``curve.csv``): the
    README's command over ten seeds, in the lab's win column (won, or stopped ahead on marbles)."""
    folder = READ_ME_SEEDS if folder is None else folder
    runs = sorted((r for r in folder.glob("s*") if r.name[1:].isdigit() and (r / "curve.csv").exists()),
                  key=_seed_of)
    if not runs:
        return {}
    curves = [load_curve(r) for r in runs]
    games = curves[0].games.astype(int)
    wins = np.array([100.0 * c.wins / (c.wins + c.draws + c.losses) for c in curves])  # seeds × evaluations
    iqm = [interval_estimate(wins[:, i], "iqm") for i in range(games.size)]
    against_random = games <= 1000  # Method I(a): its first 1,000 games are against random
    first_self_play = int(np.argmax(~against_random))
    late = np.arange(games.size) > first_self_play
    late_iqm = np.array([iqm[i].value for i in np.flatnonzero(late)])
    lowest_at = int(games[np.flatnonzero(late)[int(np.argmin(late_iqm))]])
    settled = games >= games[np.flatnonzero(late)[0]] + 250  # a step after self-play's first gains
    dips = wins[:, settled] < 50
    settled_wins = wins[:, settled]
    followed = settled_wins[:, :-1][dips[:, :-1]] if settled_wins.shape[1] > 1 else np.zeros(0)
    after = settled_wins[:, 1:][dips[:, :-1]] if settled_wins.shape[1] > 1 else np.zeros(0)
    last = iqm[-1]
    first = runs[0]
    return {
        "lab-random-wins": f"{wins[:, against_random].min():.0f}–{wins[:, against_random].max():.0f}",
        "lab-random-iqm": f"{min(e.value for e, r in zip(iqm, against_random) if r):.0f}–"
                          f"{max(e.value for e, r in zip(iqm, against_random) if r):.0f}",
        "lab-first-self-play": f"an IQM of {iqm[first_self_play].value:.0f} at {games[first_self_play]:,} games",
        "lab-late-iqm": f"{late_iqm.min():.0f}–{late_iqm.max():.0f} from {games[late][0]:,} games on "
                        f"(lowest at {lowest_at:,})",
        "lab-final": f"at {games[-1]:,} games {last.value:.0f}, band {last.low:.0f}–{last.high:.0f}",
        "lab-dips": f"{int(dips.sum())} of the {dips.size} evaluations from {games[settled][0]:,} games on, in "
                    f"{int(dips.any(axis=1).sum())} seeds of {len(runs)}, fall below 50 (to "
                    f"{wins[:, settled].min():.0f} at worst)",
        "lab-after-dip": f"{int((after >= 85).sum())} of the {followed.size} dips that have a next evaluation "
                         f"are followed by one of 85 or more",
        "lab-seeds": f"{'ten' if len(runs) == 10 else len(runs)} seeds, {_seed_of(runs[0])}–{_seed_of(runs[-1])}",
        "lab-one-seed": f"seed {_seed_of(first)}, the command above, gives "
                        + ", ".join(f"{w:.0f}" for w in wins[0]),
    }


def check_training() -> list[str]:
    """Run docs/lab.md's first ``sumito train`` command (the README's) afresh and compare its curve, row for
    row, with the committed run of the same seed that the figures above come from (about a minute)."""
    text = (DOCS / "lab.md").read_text()
    found = re.search(r"^sumito train (.*?)$", text.replace("\\\n", " "), re.M)
    if not found:
        return ["docs/lab.md has no `sumito train` command"]
    argv = shlex.split(found.group(1))
    seed = argv[argv.index("--seed") + 1]
    out_at = argv.index("--out") + 1
    with tempfile.TemporaryDirectory() as folder:
        argv[out_at] = str(Path(folder) / "run")
        subprocess.run([sys.executable, "-m", "sumito", "train", *argv, "--quiet"], check=True)
        fresh = (Path(folder) / "run" / "curve.csv").read_text()
    committed = READ_ME_SEEDS / f"s{seed}" / "curve.csv"
    if not committed.exists():
        return [f"{committed.relative_to(ROOT)} is missing (python experiments/readme_seeds.py makes it)"]
    if fresh != committed.read_text():
        return [f"docs/lab.md's training command gives another curve than {committed.relative_to(ROOT)}:\n{fresh}"]
    return []


def rewrite(text: str, samples: dict[str, str] | None) -> str:
    texts = timing_texts()
    figures = training_figures()

    def sample(match: re.Match[str]) -> str:
        body = samples.get(match.group(1), match.group(2)) if samples is not None else match.group(2)
        whole, start, end = match.group(0), match.start(2) - match.start(0), match.end(2) - match.start(0)
        return whole[:start] + body + whole[end:]

    def stated(match: re.Match[str]) -> str:
        return f"<!-- time {match.group(1)} -->{texts.get(match.group(1), match.group(2))}<!-- /time -->"

    def figure(match: re.Match[str]) -> str:
        return f"<!-- figure {match.group(1)} -->{figures.get(match.group(1), match.group(2))}<!-- /figure -->"

    return FIGURE_MARK.sub(figure, TIME_MARK.sub(stated, SAMPLE_MARK.sub(sample, text)))


def _rewrite_page(page: Path, samples: dict[str, str] | None) -> bool:
    """Rewrite the page's marks (``samples`` as in :func:`rewrite`); whether it changed."""
    text = page.read_text()
    new = rewrite(text, samples)
    if new != text:
        page.write_text(new)
    return new != text


def check(names: list[str] | None = None) -> list[str]:
    """What is wrong with the marks of README.md and docs/*.md (empty: nothing); ``names`` limits the
    samples run."""
    problems = []
    marked: dict[str, str] = {}
    texts = timing_texts()
    figures = training_figures()
    for page in pages():
        text = page.read_text()
        where = _name(page)
        for name, body in SAMPLE_MARK.findall(text):
            if name not in SAMPLES:
                problems.append(f"{where} marks a sample {name!r} that tools/readme_samples.py does not know")
            elif name in marked:
                problems.append(f"{where} marks the sample {name!r} a second time")
            else:
                marked[name] = body
        for name, said in TIME_MARK.findall(text):
            if name not in texts:
                problems.append(f"{where} marks a time {name!r} that docs/timings.json does not give")
            elif said != texts[name]:
                problems.append(f"{where} says {said!r} for {name}; docs/timings.json says {texts[name]!r}")
        for name, said in FIGURE_MARK.findall(text):
            if name not in figures:
                problems.append(f"{where} marks a figure {name!r} that the committed runs do not give")
            elif said != figures[name]:
                problems.append(f"{where} says {said!r} for {name}; the committed runs give {figures[name]!r}")
    for name in SAMPLES.keys() - marked.keys():
        problems.append(f"sample {name!r} is in neither the README nor a page of docs/")
    if "compile" in texts and texts["compile"] != f"{sumito.jit.COMPILE_SECONDS} seconds":
        problems.append(f"sumito.jit.COMPILE_SECONDS is {sumito.jit.COMPILE_SECONDS}; docs/timings.json measured "
                        f"{texts['compile']} of compiling")
    for name in names if names is not None else sorted(SAMPLES.keys() & marked.keys()):
        fresh = run_sample(SAMPLES[name])
        if normalise(fresh) != normalise(marked[name]):
            problems.append(f"sample {name!r} is stale; now:\n{fresh}")
    return problems


def measure_cold(runs: int) -> dict:
    """bench/bench_cold_start.py with real installs too (``--pip``); its table is printed as it comes."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_cold_start.py"), "--runs", str(runs),
                          "--pip", "--json"], stdout=subprocess.PIPE, text=True, check=True)
    print(out.stdout)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: OpenBLAS's kernels for the x86-64 families, each with the CPU flag it needs (OpenBLAS runs a forced kernel
#: even where its instructions are missing, so one this CPU cannot run is left out)
KERNELS = {"Haswell": "avx2", "SkylakeX": "avx512f", "Zen": "avx2"}

_CORE_NAME = """
import ctypes, glob, os, numpy
for lib in sorted(glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*"))):
    for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                 "openblas_get_corename"):
        get = getattr(ctypes.CDLL(lib), name, None)
        if get is not None:
            get.restype = ctypes.c_char_p
            print(get().decode())
            raise SystemExit
print("unknown")
"""


def openblas_core(env: dict[str, str] | None = None) -> str:
    """The kernel numpy's OpenBLAS picks under ``env`` (its own choice for this CPU without one)."""
    done = subprocess.run([sys.executable, "-c", _CORE_NAME], env={**os.environ, **(env or {})},
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _run_suite(extra: list[str], env: dict[str, str] | None = None) -> tuple[float, str, str]:
    """The whole suite (or a part, by ``extra``): seconds, its summary line and all it printed. A run with a
    failure is not a measurement: what failed is printed (the whole output is kept in a file named there)
    and the program stops without writing anything."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", *extra],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    lines = done.stdout.strip().splitlines() or ["(no output)"]
    summary = lines[-1].strip("= ")
    if done.returncode != 0:
        log = Path(tempfile.gettempdir()) / f"sumito-suite-{os.getpid()}.log"
        log.write_text(done.stdout + done.stderr)
        failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        sys.exit("\n".join([f"the suite failed ({summary}; env {env or {}}); not recorded. Its output: {log}",
                             *failed]))
    return round(time.perf_counter() - start, 1), summary, done.stdout


def _count(summary: str, what: str) -> int:
    found = re.search(rf"(\d+) {what}", summary)
    return int(found.group(1)) if found else 0


def measure_kernels(cores: list[str], commit: str) -> dict:
    """The whole suite under each OpenBLAS kernel of ``cores`` that this CPU can run (``OPENBLAS_CORETYPE``),
    added to what docs/timings.json holds for the others. A name that this numpy's OpenBLAS runs with a
    kernel already run at this commit (its own choice in ``--measure suite``'s run, or Zen, which some builds
    run with the Haswell kernel) is recorded as that run, not run again: the same kernel computes the same bits."""
    data = _timings()
    found = dict(data.get("kernels", {}).get("runs", {}))
    done: dict[str, dict] = {}  # kernel actually run -> its record, at this commit
    suite = data.get("suite", {})
    if suite.get("commit") == commit and suite.get("openblas_core"):
        done[suite["openblas_core"]] = {"summary": suite["all_summary"], "passed": suite["all_passed"],
                                        "s": suite["all_s"], "commit": commit,
                                        "run": "--measure suite (no OPENBLAS_CORETYPE)"}
    flags: set[str] = set()
    with contextlib.suppress(OSError):
        flags = {f for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags")
                 for f in line.split(":", 1)[1].split()}
    for core in cores:
        if KERNELS[core] not in flags:
            print(f"{core}: this CPU lacks {KERNELS[core]}; left out")
            continue
        env = {"OPENBLAS_CORETYPE": core}
        picked = openblas_core(env)
        if picked not in done:
            seconds, summary, _ = _run_suite([], env)
            done[picked] = {"summary": summary, "passed": _count(summary, "passed"), "s": seconds,
                            "commit": commit, "run": f"OPENBLAS_CORETYPE={core}"}
        found[core] = {"picked": picked, **done[picked]}
        print(f"{core} ({picked} kernel): {done[picked]['summary']} [{done[picked]['run']}]")
    return {"runs": dict(sorted(found.items()))}


def measure_suite() -> dict:
    """Time the whole suite (recording each test's time in tests/durations.json, from which conftest.py
    marks the slow ones), then the fast subset that leaves them out."""
    result: dict = {"openblas_core": openblas_core(),
                    "gnubg_nn": importlib.util.find_spec("gnubg_nn") is not None}  # its tests skip without it
    for key, extra in (("all", ["--durations=0", "--durations-min=0.5"]), ("fast", ["-m", "not slow"])):
        seconds, summary, printed = _run_suite(extra)
        result[f"{key}_s"] = seconds
        result[f"{key}_passed"] = _count(summary, "passed")
        result[f"{key}_summary"] = summary
        if key == "all":
            durations: dict[str, float] = {}
            for line in printed.splitlines():
                found = re.match(r"([\d.]+)s (setup|call|teardown)\s+(\S.*)$", line)
                if found:
                    durations[found.group(3)] = round(durations.get(found.group(3), 0.0) + float(found.group(1)), 2)
            DURATIONS.write_text(json.dumps(dict(sorted(durations.items())), indent=1) + "\n")
    return result


#: ``--measure rates``: a fresh network's first games of ``sumito bg train`` (long ones, hundreds of plies,
#: until it learns to bear off), and the PPO example's first steps with one PyTorch thread and with one a core
RATE_BG_GAMES = 300
RATE_PPO_STEPS = 10_000
_PPO_RATE = re.compile(r"trained MaskablePPO for (\d+) steps in ([\d.]+) s")


def measure_rates() -> dict:
    """The training rates a user sees from a fresh start, as the pages' commands run: ``sumito bg train``'s
    games a minute over a fresh network's first games (no test games), and the PPO example's training steps a
    second with its default of one PyTorch thread and with PyTorch's own default of one a core. The example
    needs torch and sb3-contrib (docs/rl.md's command installs them); where they are missing its rates are
    left as docs/timings.json had them, and said so."""
    data = _timings()
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="sumito-rates-") as folder:
        start = time.perf_counter()
        subprocess.run(_argv(f"sumito bg train --out {folder}/bg -n {RATE_BG_GAMES} --test-games 0 --seed 1"),
                       check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        result["bg_train_fresh"] = {"games": RATE_BG_GAMES, "s": round(seconds, 1),
                                    "games_per_min": round(RATE_BG_GAMES / seconds * 60)}
        print(f"sumito bg train, a fresh network's first {RATE_BG_GAMES} games: {seconds:.1f} s")
        if subprocess.run([sys.executable, "-c", "import torch, sb3_contrib"], capture_output=True).returncode:
            print("the PPO example: torch or sb3-contrib is not installed here; its rates are left as they were")
            if "ppo" in data.get("rates", {}):
                result["ppo"] = data["rates"]["ppo"]
            return result
        ppo: dict = {}
        for threads in sorted({1, os.cpu_count() or 1}):
            done = subprocess.run([sys.executable, str(ROOT / "examples" / "train_maskable_ppo.py"), "--steps",
                                   str(RATE_PPO_STEPS), "--games", "2", "--seed", "1", "--torch-threads",
                                   str(threads), "--out", f"{folder}/ppo"], capture_output=True, text=True, check=True)
            found = _PPO_RATE.search(done.stdout)
            if found is None:
                sys.exit(f"the PPO example printed no 'trained MaskablePPO for N steps in S s' line:\n{done.stdout}")
            steps, seconds = int(found.group(1)), float(found.group(2))
            ppo[f"threads_{threads}"] = {"steps": steps, "s": seconds, "steps_per_s": round(steps / seconds)}
            print(f"the PPO example, {steps} steps on {threads} PyTorch thread(s): {seconds:.1f} s")
        result["ppo"] = ppo
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="re-run every sample; write the samples and times")
    mode.add_argument("--check", action="store_true",
                      help="compare the README and docs/*.md with fresh runs and the timings")
    mode.add_argument("--check-training", action="store_true",
                      help="re-run docs/lab.md's training command and compare it with the committed run")
    mode.add_argument("--measure", choices=("cold", "suite", "kernels", "rates"),
                      help="measure, record in docs/timings.json and rewrite the time marks of the pages")
    parser.add_argument("--runs", type=int, default=3, help="cold runs for --measure cold")
    parser.add_argument("--cores", nargs="+", choices=sorted(KERNELS), default=sorted(KERNELS),
                        help="OpenBLAS kernels for --measure kernels (default: all)")
    args = parser.parse_args()
    if args.measure:
        data = _timings()
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        measure = {"cold": lambda: measure_cold(args.runs), "suite": measure_suite, "rates": measure_rates,
                   "kernels": lambda: measure_kernels(args.cores, commit)}[args.measure]
        found = measure()
        found.update(date=date.today().isoformat(), commit=commit, cpus=os.cpu_count(),
                     machine=f"{platform.machine()}, Python {platform.python_version()}")
        data[args.measure] = found
        TIMINGS.write_text(json.dumps(data, indent=2) + "\n")
        print(json.dumps(found, indent=2))
        # the pages say what was measured at once, so that the suite (tests/test_readme.py) passes on them
        changed = [_name(page) for page in pages() if _rewrite_page(page, None)]
        print(f"rewrote the time marks of {', '.join(changed) or 'no page'}")
    elif args.check_training:
        problems = check_training()
        print("\n".join(problems) or "the training command gives the committed curve, row for row")
        sys.exit(1 if problems else 0)
    elif args.write:
        fresh = {name: run_sample(sample) for name, sample in SAMPLES.items()}
        changed = [_name(page) for page in pages() if _rewrite_page(page, fresh)]
        print(f"ran {len(fresh)} samples; rewrote {', '.join(changed) or 'nothing'}")
    else:
        problems = check()
        for problem in problems:
            print(problem)
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
