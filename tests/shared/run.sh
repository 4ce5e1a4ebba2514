#!/bin/sh
# Scenario tests on the shared traces: the LANL-CM5 replay under easy and
# fcfs, checked with the same invariants as the KTH replay. Needs the trace
# directory ($HETLAB_TRACES, else ../shared/traces).
# usage: tests/shared/run.sh HETLAB
set -u
HETLAB=$1
TRACES=${HETLAB_TRACES:-../shared/traces}
LANL=$TRACES/swf-lanl-cm5-1994/LANL-CM5-1994-4.1-cln.swf.gz
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
q() { sqlite3 -batch -noheader "$1" "$2"; }

if [ ! -r "$LANL" ]; then
	echo "FAIL missing shared trace $LANL: get the shared traces folder (../shared/traces beside"
	echo "     the repository; its SOURCE.md names the Parallel Workloads Archive) or set HETLAB_TRACES"
	echo "shared: 0 passed, 1 failed"
	exit 1
fi
# Σ cores × time the LANL jobs occupy: the site let jobs overrun their
# estimates and so does the scenario, so each runs its logged runtime.
work=$(gzip -dc "$LANL" | awk '/^;/ || NF < 18 { next }
	{ run = $4; p = ($5 > 0) ? $5 : $8; if (run < 0 || p <= 0) next; if (run == 0) run = 0.000001; w += p * run }
	END { printf "%.0f", w }')
for pol in easy fcfs; do
	db=$TMP/lanl-$pol.db
	if ! "$HETLAB" run scenarios/lanl-cm5.json --policy $pol --out "$db" --quiet; then
		bad "lanl $pol: run"
		continue
	fi
	[ "$(q "$db" "SELECT count(*) FROM job WHERE end_us IS NULL OR start_us < submit_us")" = 0 ] &&
		ok "lanl $pol: every job ran, none before its submission" || bad "lanl $pol: unfinished or early jobs"
	peak=$(q "$db" "SELECT max(s) FROM (SELECT sum(d) OVER (ORDER BY t, o ROWS UNBOUNDED PRECEDING) s FROM (
		SELECT start_us t, 1 o, cores d FROM job WHERE start_us IS NOT NULL
		UNION ALL SELECT end_us t, 0 o, -cores d FROM job WHERE start_us IS NOT NULL))")
	[ "$peak" -le 1024 ] && ok "lanl $pol: never more than 1024 cores allocated ($peak)" || bad "lanl $pol: over-allocation" "$peak"
	got=$(q "$db" 'SELECT printf("%.0f", sum(cores * (end_us - start_us)) / 1e6) FROM job')
	if awk -v a="$got" -v b="$work" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * b + 1) }'; then
		ok "lanl $pol: work conserved ($got core-s)"
	else
		bad "lanl $pol: work not conserved" "engine $got, log $work"
	fi
done
# FCFS and EASY job tables on every real SWF log, pinned.
if sh tests/shared/jobtables.sh "$HETLAB"; then ok "job tables pinned"; else bad "job tables changed (tests/shared/jobtables.sh)"; fi
echo
echo "shared: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
