#!/bin/bash
# statement-digest.sh: where the database's statement time goes in a
# chime-bench run, statement by statement (performance_schema's digests).
#
# Usage (after `./dev db-up`; the throwaway server is restarted with
# performance_schema on for the run, and as ./dev left it afterwards):
#   bench/statement-digest.sh [CHIME-BENCH ARGS...]
# e.g. bench/statement-digest.sh --triggers 2000 --interval-ms 200
#
# Runs build/bench/chime-bench with 3 nodes for 10 s and the given
# arguments, clears the digests 6 s in (after the warm-up) and prints, 8 s
# later, the 12 statements with the most time: calls, rows examined per
# call, calls that read a table without an index, ms per call (lock waits
# included) and total ms, then chime-bench's own line.
set -euo pipefail
cd "$(dirname "$0")/.."
./dev db-up >/dev/null
cnf=build/mariadb/my.cnf
ps_cnf=build/mariadb/my-digest.cnf
client() { mariadb --defaults-file="$cnf" --protocol=socket -uroot "$@"; }
pid_file=$(client -N -e "SELECT @@pid_file")
restart() { # $1: the configuration file to start with
  kill "$(cat "$pid_file")"
  while [ -e "$pid_file" ]; do sleep 0.2; done
  mariadbd --defaults-file="$1" --user="$(id -un)" >/dev/null 2>&1 &
  until client -e "SELECT 1" >/dev/null 2>&1; do sleep 0.2; done
}
{ cat "$cnf"; printf '%s\n' performance_schema=ON \
    performance_schema_digests_size=2000; } >"$ps_cnf"
out=$(mktemp)
trap 'rm -f "$out"; restart "$cnf"; rm -f "$ps_cnf"' EXIT
restart "$ps_cnf"
build/bench/chime-bench --url "$(./dev db-url)" --seconds 10 --nodes 3 \
  "$@" >"$out" 2>/dev/null &
bench=$!
sleep 6
client -e "TRUNCATE performance_schema.events_statements_summary_by_digest"
sleep 8
client -e "SELECT count_star AS calls,
    ROUND(sum_rows_examined / count_star, 1) AS examined_per_call,
    sum_no_index_used AS no_index, ROUND(avg_timer_wait / 1e9, 2) AS ms_per_call,
    ROUND(sum_timer_wait / 1e9) AS ms, LEFT(digest_text, 70) AS statement
  FROM performance_schema.events_statements_summary_by_digest
  ORDER BY sum_timer_wait DESC LIMIT 12"
wait "$bench"
tail -1 "$out"
