#!/usr/bin/env bash
# Every Abalone learning experiment of docs/reproductions.md, at the papers' scale, one after the
# other (each resumes where it stopped when run again). Tables go to runs/repro/EXPERIMENT.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-runs/repro}
workers=${WORKERS:-2}
mkdir -p "$out"
for exp in ${EXPERIMENTS:-readings-screen readings-grid table2 table2-end fig4 kappa-readings method-readings fig5 fig3 fig2}; do
    python experiments/learning_curves.py "$exp" --out "$out" --workers "$workers" >"$out/$exp.md.tmp"
    mv "$out/$exp.md.tmp" "$out/$exp.md"
done
