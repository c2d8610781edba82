#!/bin/bash
# The README's Dealer "Latest figures", one run after another (from the checkout, after
# `make engine-build`; nothing else running): each benchmark's output goes to $OUT/<name>.log.
#   bash bench/figures.sh [OUT]     # OUT defaults to a new temporary directory
set -u
py=${PYTHON:-.venv/bin/python}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
started=$(date -u +%H:%M)
for k in 1 2 3; do $py -m bench.dealer --scenario headsup --headsup-hands 1000 > "$out/headsup-$k.log" 2>&1; done
for k in 1 2 3; do $py -m bench.dealer --scenario instant --rounds 2 > "$out/instant-$k.log" 2>&1; done
$py -m bench.dealer --scenario paced --paced-tables 8,16,24,32,40 > "$out/paced.log" 2>&1
$py -m bench.league --hands 40 --rounds 5 > "$out/league.log" 2>&1
for k in 1 2 3; do $py -m bench.web > "$out/web-$k.log" 2>&1; done
$py -m bench.league_instructions --hands 8 40 > "$out/league-instructions.log" 2>&1
echo "figures in $out ($started-$(date -u +%H:%M) UTC)"
