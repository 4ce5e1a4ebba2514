#!/bin/sh
# bench/forecast-slurm.sh [--test] [--port-offset N] [--out DIR] HETLAB —
# hetlab's forecasts against Slurm's own (`squeue --start`), on the local
# real Slurm cluster (tests/slurm/local-slurm.sh, with accounting; one
# partition of its six 4-CPU nodes), docs/forecast.md "Beside a real
# Slurm". bench/forecast_slurm.py submits BENCH_FCS_JOBS jobs (default
# 300; --test: 40) with run times of 5-150 s (--test: 2-20 s) and limits of
# whole minutes, 2x-10x their run times, by sbatch over BENCH_FCS_SPAN_S
# (default 600 s; --test 15 s); `hetlab shadow` runs beside it, read-only
# (sbatch, scontrol and scancel on its PATH fail loudly and log the call),
# polling every BENCH_FCS_POLL_S (5 s; --test 2 s). At the end the shadow's
# forecasts are scored against sacct's starts: each job's first forecast
# and one every 30 s (--test: 10 s) while it waited. Prints the shadow's CPU
# time (user+sys, its draws included) beside its wall time, and as its last
# line
#   forecast: N jobs, hetlab median abs error H s, squeue --start S s, p10-p90 coverage C %
# Holds /tmp/hetlab-slurm.lock (or /tmp/hetlab-slurm-N.lock with
# --port-offset N) throughout, and stops exactly the cluster it started.
# Exit 77 when Slurm cannot run here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TEST= PO=0 OUT=
while [ $# -gt 1 ]; do
	case $1 in
	--test) TEST=--test ;;
	--port-offset) PO=$2; shift ;;
	--out) OUT=$2; shift ;;
	*) echo "usage: sh bench/forecast-slurm.sh [--test] [--port-offset N] [--out DIR] HETLAB" >&2; exit 2 ;;
	esac
	shift
done
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
how() { echo "forecast-slurm: $*"; exit 77; }
[ "$(id -u)" = 0 ] || how "needs root (munged and slurmd run as root)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue sacct python3 flock sqlite3; do
	command -v $c >/dev/null 2>&1 || how "$c not found"
done
LOCK=/tmp/hetlab-slurm-$PO.lock
[ "$PO" = 0 ] && LOCK=/tmp/hetlab-slurm.lock
if [ -z "${HETLAB_FCS_LOCKED:-}" ]; then
	HETLAB_FCS_LOCKED=1 exec flock "$LOCK" sh "$0" $TEST --port-offset "$PO" ${OUT:+--out "$OUT"} "$HETLAB"
fi
if [ -n "$TEST" ]; then
	JOBS=${BENCH_FCS_JOBS:-40} RMIN=2 RMAX=20 SPAN=${BENCH_FCS_SPAN_S:-15} POLL=${BENCH_FCS_POLL_S:-2} EVERY=10
else
	JOBS=${BENCH_FCS_JOBS:-300} RMIN=5 RMAX=150 SPAN=${BENCH_FCS_SPAN_S:-600} POLL=${BENCH_FCS_POLL_S:-5} EVERY=30
fi
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-fcs-XXXXXX") || exit 1
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
SLURM="sh $TOP/tests/slurm/local-slurm.sh"
CL=$OUT/cluster SH=
cleanup() {
	[ -n "$SH" ] && kill "$SH" 2>/dev/null && wait "$SH"
	SH=
	[ -n "$CL" ] && LOCAL_SLURM_PORT_OFFSET=$PO $SLURM stop "$CL" >/dev/null 2>&1
	CL=
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
echo "forecast-slurm: $JOBS jobs of $RMIN-$RMAX s over $SPAN s, a shadow poll every $POLL s -> $OUT"
if ! LOCAL_SLURM_PORT_OFFSET=$PO LOCAL_SLURM_CONF_EXTRA="PartitionName=debug Nodes=n[1-6] Default=YES MaxTime=INFINITE State=UP" \
	$SLURM start "$CL" </dev/null >"$OUT/local-slurm.log" 2>&1; then
	echo "forecast-slurm: the cluster did not start: $(tail -n 1 "$OUT/local-slurm.log")"
	exit 1
fi
SLURM_CONF=$CL/etc/slurm.conf; export SLURM_CONF
# What the shadow may not run: each logs its call and fails.
mkdir -p "$OUT/deny"
for c in sbatch scontrol scancel srun salloc sacctmgr; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/denied.log"\necho "%s: hetlab shadow must not run this" >&2\nexit 99\n' \
		"$c" "$OUT" "$c" >"$OUT/deny/$c"
	chmod +x "$OUT/deny/$c"
done
PATH="$OUT/deny:$PATH" "$HETLAB" shadow --slurm-conf "$CL/etc/slurm.conf" --gres-conf "$CL/etc/gres.conf" \
	--state "$OUT/shadow" --every "$POLL" </dev/null 2>"$OUT/shadow.log" &
SH=$!
python3 "$HERE/forecast_slurm.py" submit "$JOBS" 1 "$RMIN" "$RMAX" "$SPAN" "$OUT/submit.log" </dev/null \
	>"$OUT/submit.out" 2>&1 || { cat "$OUT/submit.out"; exit 1; }
sleep $((POLL * 2 + 1))   # the shadow sees the last starts
kill -TERM "$SH"
wait "$SH"
SH=
SLURM_TIME_FORMAT=%s sacct -a -X -n -P -S 2020-01-01 -E now --name fc --format=JobIDRaw,Start >"$OUT/run.sacct" 2>"$OUT/sacct.err"
cleanup
cat "$OUT/submit.out"
grep -E 'polls .*cpu' "$OUT/shadow.log" | sed 's/^hetlab shadow: /forecast-slurm: the shadow: /'
echo "forecast-slurm: the shadow's failed polls: $(sqlite3 "$OUT/shadow/shadow.db" 'SELECT count(*) FROM poll WHERE ok = 0')"
echo "forecast-slurm: commands the shadow tried that write to Slurm: $(cat "$OUT/denied.log" 2>/dev/null | wc -l)"
echo "forecast-slurm: jobs in sacct $(grep -c . "$OUT/run.sacct"), submitted $(grep -c . "$OUT/submit.log")"
"$HETLAB" shadow report "$OUT/shadow/shadow.db" | sed 's/^/  /'
python3 "$HERE/forecast_slurm.py" score "$OUT/shadow/shadow.db" "$OUT/run.sacct" "$EVERY"
