#!/bin/bash
# The README's Dealer "Latest figures", one run after another (after `make engine-build`, with
# nothing else running): each benchmark's output goes to $OUT/<name>.log.
#   bash bench/figures.sh [OUT]     # OUT defaults to a new temporary directory
# Exits 1 (after the rest have run) if any benchmark failed, naming it.
set -u
cd "$(dirname "$0")/.." || exit 1
py=${PYTHON:-.venv/bin/python}
out=${1:-$(mktemp -d)}
mkdir -p "$out" || exit 1
started=$(date -u +%H:%M)
failed=()
run() {  # run NAME ARGS...: python ARGS > $out/NAME.log
    local name=$1
    shift
    "$py" "$@" > "$out/$name.log" 2>&1 || failed+=("$name")
}
for k in 1 2 3; do run "headsup-$k" -m bench.dealer --scenario headsup --headsup-hands 1000; done
for k in 1 2 3; do run "instant-$k" -m bench.dealer --scenario instant --rounds 2; done
run paced -m bench.dealer --scenario paced --paced-tables 8,16,24,32,40
run league -m bench.league --hands 40 --rounds 15
for k in 1 2 3; do run "web-$k" -m bench.web; done
for k in 1 2; do run "league-instructions-$k" -m bench.league_instructions --hands 8 40; done
echo "figures in $out ($started-$(date -u +%H:%M) UTC)"
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]} (see their logs)" >&2
    exit 1
fi
