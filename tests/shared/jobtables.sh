#!/bin/sh
# Regression pin: FCFS and EASY on the real SWF logs (KTH, LANL, NASA,
# Lublin-1, Lublin-2) must give the same schedule job for job as when the
# pin was taken (these schedules were checked against independent EASY
# simulators). For each (log, policy) the job table (id, nodes, cores,
# submit, start, end in µs, state) is hashed and compared with
# tests/shared/expected/jobtables.txt, with the job count and mean wait
# beside it so that a failure says how far off a run is.
# usage: tests/shared/jobtables.sh HETLAB [--regenerate]
set -u
HETLAB=$1
REGEN=${2:-}
TRACES=${HETLAB_TRACES:-../shared/traces}
EXPECTED=tests/shared/expected/jobtables.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
q() { sqlite3 -batch -noheader "$1" "$2"; }

# name scenario trace (relative to the trace directory; empty: the scenario's own)
LOGS="kth scenarios/kth-sp2.json -
lanl scenarios/lanl-cm5.json -
nasa scenarios/lanl-cm5.json swf-nasa-ipsc-1993/NASA-iPSC-1993-3.1-cln.swf.gz
lublin1 scenarios/lanl-cm5.json swf-lublin256-synthetic/lublin_256.swf
lublin2 scenarios/lanl-cm5.json swf-lublin256-synthetic/lublin_256_new2.swf"

out=$TMP/got.txt
: >"$out"
echo "$LOGS" | while read -r name scn trace; do
	for pol in fcfs easy; do
		db=$TMP/$name-$pol.db
		if [ "$trace" = - ]; then
			"$HETLAB" run "$scn" --traces "$TRACES" --policy $pol --out "$db" --quiet
		else
			"$HETLAB" run "$scn" --traces "$TRACES" --trace "$TRACES/$trace" --policy $pol \
				--out "$db" --quiet
		fi || { echo "$name $pol run-failed" >>"$out"; continue; }
		sum=$(q "$db" "SELECT id, nodes, cores, submit_us, start_us, end_us, state FROM job ORDER BY id" |
			sha256sum | cut -c1-16)
		fig=$(q "$db" "SELECT count(*) || ' ' || printf('%.3f', avg(wait_s)) FROM job")
		echo "$name $pol $fig $sum" >>"$out"
	done
done
if [ "$REGEN" = --regenerate ]; then
	cp "$out" "$EXPECTED"
	echo "wrote $EXPECTED"
	exit 0
fi
while read -r name pol jobs wait sum; do
	want=$(awk -v n="$name" -v p="$pol" '$1 == n && $2 == p' "$EXPECTED")
	if [ "$want" = "$name $pol $jobs $wait $sum" ]; then
		ok "job table $name $pol unchanged ($jobs jobs, mean wait $wait s)"
	else
		bad "job table $name $pol changed" "got '$name $pol $jobs $wait $sum', pinned '$want'"
	fi
done <"$out"
echo
echo "jobtables: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
