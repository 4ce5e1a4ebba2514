#!/bin/sh
# make test-slurm: `hetlab shadow` beside a real local Slurm (the short
# version of bench/forecast-slurm.sh: 40 jobs of 2-20 s with limits of
# whole minutes, submitted by sbatch over 15 s; the shadow polls every
# 2 s with sbatch, scontrol and scancel on its PATH that log and fail).
#
#   sh tests/slurm/shadow.sh build/hetlab
#
# Passes when the shadow ran no command that writes to Slurm, Slurm ran
# exactly the bench's jobs, no poll failed, the accuracy table and the
# bench's last line are there and their numbers are sane (counts > 0, a
# coverage within 0-100 %). No timing threshold (the bench's figures are in
# docs/forecast.md). Its cluster's ports are local-slurm.sh's plus 4000
# (/tmp/hetlab-slurm-4000.lock held: a caller may hold
# /tmp/hetlab-slurm.lock around make test-slurm). Prints "SKIP shadow:
# why" and exits 0 when Slurm cannot run here; "shadow: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
[ -x "$HETLAB" ] || { echo "shadow: $HETLAB not found" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-shadow-slurm-XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
trap 'exit 130' INT TERM HUP
NAME=shadow
. "$HERE/testlib.sh"
t0=$(date +%s)
sh "$ROOT/bench/forecast-slurm.sh" --test --port-offset 4000 --out "$D/out" "$HETLAB" </dev/null >"$D/bench.out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP shadow: $(head -n 1 "$D/bench.out" | sed 's/^forecast-slurm: //')"
	exit 0
fi
if grep -q 'the cluster did not start' "$D/bench.out"; then
	echo "SKIP shadow: $(grep 'the cluster did not start' "$D/bench.out" | sed 's/^forecast-slurm: //')"
	exit 0
fi
check "bench/forecast-slurm.sh --test exits 0" "$([ $rc = 0 ] && echo 1)" "exit $rc: $(tail -n 5 "$D/bench.out")"
check_eq "the shadow ran no command that writes to Slurm" \
	"$(sed -n 's/^forecast-slurm: commands the shadow tried that write to Slurm: //p' "$D/bench.out")" 0
check_eq "Slurm ran exactly the bench's jobs" "$(sed -n 's/^forecast-slurm: jobs in sacct //p' "$D/bench.out")" "40, submitted 40"
check_eq "no poll failed" "$(sqlite3 "$D/out/shadow/shadow.db" 'SELECT count(*) FROM poll WHERE ok = 0')" 0
check_eq "the accuracy table has its five rows" "$(sqlite3 "$D/out/shadow/shadow.db" 'SELECT count(*) FROM accuracy')" 5
check_eq "every job the bench submitted is in the shadow's results, with its start" \
	"$(sqlite3 "$D/out/shadow/shadow.db" "SELECT count(*) FROM job WHERE start IS NOT NULL")" 40
check_eq "the report has the table" "$(grep -c -e '^  <1 min ' -e '^  all ' "$D/bench.out")" 2
last=$(tail -n 1 "$D/bench.out")
n=$(printf '%s\n' "$last" | sed -n 's/^forecast: \([0-9]*\) jobs, hetlab median abs error [0-9.]* s, squeue --start [0-9.na]* s, p10-p90 coverage \([0-9]*\) %$/\1 \2/p')
check "the bench's last line: $last" "$([ -n "$n" ] && [ "${n% *}" -gt 0 ] && [ "${n#* }" -le 100 ] && echo 1)"

# A job array beside the real Slurm: four nodes held by four jobs, an array
# of four tasks waiting behind them. Slurm gives each task an id of its own
# as it starts (the last keeping the array's); the shadow must know each
# task as one job from its first forecast to its start: four rows named
# ARRAY_1..ARRAY_4, each with a forecast and a start, and no row for the
# ids the tasks got.
A=$D/arr
mkdir -p "$A"
(
	flock 9
	LOCAL_SLURM_PORT_OFFSET=4000 sh "$HERE/local-slurm.sh" start "$A/cl" >"$A/start.log" 2>&1 || exit 3
	. "$A/cl/env"
	for i in 1 2 3 4; do sbatch --parsable -p debug -N1 -n4 --mem=100 -o /dev/null --wrap 'sleep 12' >>"$A/blockers" || exit 4; done
	sbatch --parsable -p debug --array=1-4 -N1 -n4 --mem=100 -o /dev/null --wrap 'sleep 2' >"$A/array" || exit 4
	"$HETLAB" shadow --slurm-conf "$A/cl/etc/slurm.conf" --gres-conf "$A/cl/etc/gres.conf" --state "$A/sh" \
		--every 1 --draws 5 --max-s 40 2>"$A/shadow.log"
	echo "$?" >"$A/shadow.rc"
	sh "$HERE/local-slurm.sh" stop "$A/cl" >/dev/null 2>&1
) 9>/tmp/hetlab-slurm-4000.lock
rc=$?
if [ $rc = 3 ]; then
	echo "SKIP shadow: the array's cluster did not start: $(tail -n 1 "$A/start.log")"
else
	arr=$(cat "$A/array" 2>/dev/null)
	db=$A/sh/shadow.db
	check_eq "array: the shadow beside it ran and exited 0" "$rc,$(cat "$A/shadow.rc" 2>/dev/null)" "0,0"
	check_eq "array: each task is one job, forecast while it waited and started" \
		"$(sqlite3 "$db" "SELECT group_concat(slurm_id || ':' || (start IS NOT NULL) || ':' || (SELECT count(*) > 0 FROM forecast f WHERE f.job = j.id)) FROM (SELECT * FROM job WHERE slurm_id LIKE '${arr}\\_%' ESCAPE '\\' ORDER BY slurm_id) j")" \
		"${arr}_1:1:1,${arr}_2:1:1,${arr}_3:1:1,${arr}_4:1:1"
	check_eq "array: no row for the ids the tasks got as they started (the four blockers and the four tasks only)" \
		"$(sqlite3 "$db" 'SELECT count(*) FROM job')" 8
	check_eq "array: no poll failed" "$(sqlite3 "$db" 'SELECT count(*) FROM poll WHERE ok = 0')" 0
fi
summary
