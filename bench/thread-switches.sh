#!/bin/bash
# thread-switches.sh: how often one chime-bench node's threads leave the CPU.
#
# Usage (after `./dev db-up`, with linux-perf installed):
#   bench/thread-switches.sh [CHIME-BENCH ARGS...]
# e.g. bench/thread-switches.sh --triggers 1000 --interval-ms 1000
#
# Runs build/bench/chime-bench with 3 nodes for 10 s and the given
# arguments, and counts the context switches (sched:sched_switch) of node
# n1 for 4 s in the middle of the window, by thread name: chime-loop,
# chime-worker, chime-complete.  Each switch is a wake-up the node pays
# for (a futex wait, a sleep, a poll on the database socket).  Prints the
# counts and each per n1 run (n1's share of the window, per_node's first
# number, scaled to the 4 s), then chime-bench's own line.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp) data=$(mktemp)
trap 'rm -f "$out" "$data"' EXIT
build/bench/chime-bench --url "$(./dev db-url)" --seconds 10 --nodes 3 \
  "$@" >"$out" 2>/dev/null &
bench=$!
# The warm-up (3 s) and 4 s of the window first.
sleep 7
pid=$(ps -eo pid,args | awk '$2 == "chime-bench" && $3 == "--node" &&
                               $4 == "n1" {print $1}')
[ -n "$pid" ] || { echo "no node n1 running" >&2; exit 1; }
timeout 4 perf record -q -e sched:sched_switch -p "$pid" -o "$data" \
  >/dev/null 2>&1 || true
wait "$bench"
# n1's runs in the 4 s: its share of the window (per_node's first number
# over the 10 s), scaled.
runs=$(tail -1 "$out" | tr '\t' '\n' | sed -n 's/^per_node=\([0-9]*\).*/\1/p')
perf report -i "$data" --no-children --sort comm -F sample,comm 2>/dev/null |
  awk -v runs="${runs:-0}" '/^ +[0-9]/ {
      printf "%s=%s (%.2f a run) ", $2, $1, runs ? $1 / (runs * 0.4) : 0 }
    END { print "" }'
tail -1 "$out"
