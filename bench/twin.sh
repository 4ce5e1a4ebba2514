#!/bin/sh
# bench/twin.sh — the Slurm twin against a real Slurm (docs/slurm-twin.md,
# "Validation against a real Slurm").
#
#   sh bench/twin.sh [--runs N] [--workloads LIST] [--jobs N] [--seed S] [--seeds K]
#                    [--quick | --test] [--out DIR] [--reuse] [--port-offset N] [HETLAB]
#   sh bench/twin.sh --replay SRC [--seeds K] [--out DIR] [HETLAB]
#
# For each workload (bench/twinload.py: fairshare, agesize, preempt; 500
# jobs of the KTH SP2 log's shapes compressed to seconds) it runs the real
# Slurm of tests/slurm/local-slurm.sh N times (default 2), each with the
# workload's slurm.conf lines and sacctmgr set-up: submits every job at its
# time with sbatch, waits until all ended, dumps sacct -D, sacctmgr assoc,
# qos and event, slurm.conf, gres.conf and slurmctld's log, and stops the
# cluster. Then, for each run, it builds the twin from those dumps alone
# (hetlab twin build), replays it with seeds 1-K (--seeds, default 5:
# sacct keeps whole seconds, and each seed draws where in its second a job
# arrived; hetlab run, with ctld_start_s, the phase of slurmctld's start)
# and compares every job's start with sacct's (hetlab twin check); the
# twin's figures are those of the K replays together: their mean wait,
# the |start difference| of every job of every replay. For each pair of
# runs it compares the two real runs by job name: Slurm's own spread. It
# prints each workload's figures (and the range of the replays' mean-wait
# errors) and, as its last line,
#
#   twin: N jobs, mean wait error E % (Slurm's own R %), median |dstart| M s (Slurm's own S s), p90 |dstart| P s (Slurm's own Q s)
#
# where N counts the jobs of every twin comparison, E and R are the mean
# over the workloads of |mean wait error| (twin against each real run;
# real runs against each other), and M, P, S, Q are percentiles over every
# job of those comparisons pooled.
#
# Each real run is as long as its workload (20 to 30 minutes at 500 jobs):
# the whole bench takes hours. --quick: 150 jobs of at most 120 s each
# (about 8 minutes a run); --test: what make test-slurm runs
# (tests/slurm/twin.sh): the preempt workload, 80 jobs of at most 90 s,
# one run. Every artifact stays under --out (default a new
# /tmp/hetlab-twin-XXXXXX), printed at the start and before the figures;
# --reuse keeps the real runs already there (their dumps) and does the
# rest again: a newer twin against the same real runs. The twin steps use
# a copy of HETLAB taken at the start (OUT/hetlab).
#
# --replay SRC: no Slurm, no root: the twin against real runs kept in SRC
# (a copy of OUT's workload folders with each run's dumps, run.sacct or
# run.sacct.gz; tests/data/twin-real holds the runs of the figures in
# docs/slurm-twin.md), copied to OUT and gone through as --reuse would.
#
# The cluster's ports are local-slurm.sh's plus --port-offset (default
# 1000: apart from the tests' clusters); the bench holds
# /tmp/hetlab-slurm-OFFSET.lock (flock) throughout. Needs root, Debian 12's
# slurmctld slurmd slurm-client munge slurmdbd mariadb-server and python3.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
RUNS=2 WORKLOADS=fairshare,agesize,preempt JOBS=500 SEED=1 MODE=full OUT= PO=1000 HETLAB= REUSE= SRC= SEEDS=5
usage() { echo "usage: sh bench/twin.sh [--runs N] [--workloads LIST] [--jobs N] [--seed S] [--seeds K] [--quick | --test] [--out DIR] [--reuse] [--port-offset N] [HETLAB]" >&2
	echo "       sh bench/twin.sh --replay SRC [--seeds K] [--out DIR] [HETLAB]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=${2:-}; shift ;;
	--workloads) WORKLOADS=${2:-}; shift ;;
	--jobs) JOBS=${2:-}; shift ;;
	--seed) SEED=${2:-}; shift ;;
	--quick) MODE=quick ;;
	--test) MODE=test ;;
	--out) OUT=${2:-}; shift ;;
	--reuse) REUSE=--reuse ;;
	--seeds) SEEDS=${2:-}; shift ;;
	--replay) SRC=${2:-}; shift; MODE=replay ;;
	--port-offset) PO=${2:-}; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) HETLAB=$1 ;;
	esac
	shift
done
[ "${SEEDS:-0}" != 0 ] || usage
for v in "$RUNS" "$JOBS" "$SEED" "$PO" "$SEEDS"; do
	case $v in ''|*[!0-9]*) usage ;; esac
done
HETLAB=${HETLAB:-$TOP/build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
GENOPT=
case $MODE in
quick) JOBS=150; GENOPT="--max-run 120" ;;
test) JOBS=80; RUNS=1; WORKLOADS=preempt; GENOPT="--max-run 90 --load 4" ;;
esac
how() {
	echo "twin: $*"
	echo "  This benchmark runs a real six-node Slurm cluster on this host (tests/slurm/local-slurm.sh)."
	echo "  As root on Debian 12: apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server python3"
	exit 77
}
[ -x "$HETLAB" ] || how "$HETLAB not found"
if [ $MODE = replay ]; then
	[ -n "$SRC" ] && [ -d "$SRC" ] || { echo "twin: --replay '$SRC': not a folder" >&2; exit 2; }
	command -v python3 >/dev/null 2>&1 || how "python3 not found"
else
	[ "$(id -u)" = 0 ] || how "needs root (munged and slurmd run as root)"
	for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue sacct sacctmgr python3 flock; do
		command -v $c >/dev/null 2>&1 || how "$c not found"
	done
	LOCK=/tmp/hetlab-slurm-$PO.lock
	[ "$PO" = 0 ] && LOCK=/tmp/hetlab-slurm.lock
	if [ -z "${HETLAB_TWIN_LOCKED:-}" ]; then
		HETLAB_TWIN_LOCKED=1 exec flock "$LOCK" sh "$0" --runs "$RUNS" --workloads "$WORKLOADS" \
			--jobs "$JOBS" --seed "$SEED" $( [ $MODE = full ] || echo --$MODE ) \
			${OUT:+--out "$OUT"} $REUSE --seeds "$SEEDS" --port-offset "$PO" "$HETLAB"
	fi
fi
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/hetlab-twin-XXXXXX) || exit 1
fi
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
TL="python3 $HERE/twinload.py"
SLURM="sh $TOP/tests/slurm/local-slurm.sh"
AFMT=Cluster,Account,User,Partition,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,ParentName,QOS,DefaultQOS
FMT=JobID,JobIDRaw,JobName,Partition,Account,QOS,User,State,ExitCode,Submit,Eligible,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqCPUS,ReqMem,ReqTRES,AllocTRES,NodeList,Priority
CL=
cleanup() {
	[ -n "$CL" ] && LOCAL_SLURM_PORT_OFFSET=$PO $SLURM stop "$CL"
	CL=
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ $MODE = replay ]; then
	# The kept runs, as --reuse finds them: each workload folder (with
	# its info), its runK folders' dumps, sacct's unzipped.
	WORKLOADS= RUNS=0 REUSE=--reuse
	for d in "$SRC"/*/; do
		[ -f "$d/info" ] || continue
		W=$(basename "$d")
		rm -rf "$OUT/$W" && cp -R "$d" "$OUT/$W" || exit 1
		for r in "$OUT/$W"/run*; do
			[ -f "$r/run.sacct.gz" ] && { gzip -dc "$r/run.sacct.gz" >"$r/run.sacct" || exit 1; }
			k=${r##*/run}
			case $k in ''|*[!0-9]*) ;; *) [ "$k" -gt "$RUNS" ] && RUNS=$k ;; esac
		done
		WORKLOADS=${WORKLOADS:+$WORKLOADS,}$W
	done
	[ -n "$WORKLOADS" ] || { echo "twin: --replay $SRC: no workload folder (one with an info file)" >&2; exit 1; }
	echo "twin: the real runs kept in $SRC, workloads $WORKLOADS, $RUNS run(s) each -> $OUT"
else
	echo "twin: $MODE bench, workloads $WORKLOADS, $RUNS run(s) each, $JOBS jobs, seed $SEED -> $OUT"
fi
cp "$HETLAB" "$OUT/hetlab.tmp" && mv "$OUT/hetlab.tmp" "$OUT/hetlab" || exit 1
HETLAB=$OUT/hetlab
[ $MODE = replay ] || echo "twin: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(nproc) CPUs, $(slurmctld -V), $("$HETLAB" version 2>/dev/null | head -n 1) (git $(git -C "$TOP" log -1 --format=%h 2>/dev/null)$(git -C "$TOP" status --porcelain -uno 2>/dev/null | grep -q . && echo ', with uncommitted changes'))"

# real_run W RUNDIR: one run of workload W on a fresh cluster; the dumps
# into RUNDIR. 0 when every job was submitted and ended in time.
real_run() {
	w=$OUT/$1 r=$2
	mkdir -p "$r"
	CL=$r/cluster
	rm -rf "$CL"
	if ! LOCAL_SLURM_PORT_OFFSET=$PO LOCAL_SLURM_CPUS=16 LOCAL_SLURM_MEM=32000 \
		LOCAL_SLURM_CONF_EXTRA=$(cat "$w/slurm.conf.extra") LOCAL_SLURM_SACCTMGR=$(cat "$w/sacctmgr.txt") \
		$SLURM start "$CL" </dev/null >"$r/local-slurm.log" 2>&1; then
		echo "twin: $1 $(basename "$r"): the cluster did not start: $(tail -n 1 "$r/local-slurm.log")"
		cleanup
		return 1
	fi
	SLURM_CONF=$CL/etc/slurm.conf; export SLURM_CONF
	t0=$(date +%s)
	$TL submit "$w/jobs.tsv" "$r/submit.log" --deadline "$(sed -n 's/^deadline_s=//p' "$w/info")" \
		</dev/null >"$r/submit.out" 2>&1
	ok=$?
	TZ=UTC sacct -D -a -X -P -S 2020-01-01 -E now --format=$FMT >"$r/run.sacct" 2>"$r/dump.err"
	sacctmgr -P show assoc format=$AFMT >"$r/assoc.txt" 2>>"$r/dump.err"
	sacctmgr -P show qos >"$r/qos.txt" 2>>"$r/dump.err"
	sacctmgr -P show event Start=2020-01-01T00:00:00 >"$r/event.txt" 2>>"$r/dump.err"
	cp "$CL/etc/slurm.conf" "$CL/etc/gres.conf" "$CL/ctld-start" "$r/"
	cp "$CL/log/slurmctld.log" "$r/slurmctld.log"
	cleanup
	unset SLURM_CONF
	rm -rf "$r/cluster"
	phase=$($TL phase "$r/run.sacct" "$r/ctld-start" 2>/dev/null)
	echo "$phase" >"$r/ctld_start_s"
	echo "twin: $1 $(basename "$r"): $(($(grep -c . "$r/run.sacct") - 1)) sacct lines in $(($(date +%s) - t0)) s, $(tail -n 1 "$r/submit.out" | sed 's/^twinload: //'); ctld_start_s $phase"
	return $ok
}

# twin_run RUNDIR BF: the twin built from RUNDIR's dumps, replayed, checked.
have_twin() {
	"$HETLAB" twin build --help >/dev/null 2>&1 && "$HETLAB" policies 2>/dev/null | grep -qw slurm
}
twin_run() {
	r=$1
	if ! "$HETLAB" twin build --slurm-conf "$r/slurm.conf" --gres-conf "$r/gres.conf" \
		--assoc "$r/assoc.txt" --qos "$r/qos.txt" --events "$r/event.txt" --sacct "$r/run.sacct" --out "$r/twin.json" \
		</dev/null >"$r/twin-build.out" 2>&1; then
		echo "twin: $(basename "$r"): twin build failed:"; sed 's/^/  | /' "$r/twin-build.out" | tail -n 20
		return 1
	fi
	rm -rf "$r/twin" "$r"/check-s*.json
	if ! "$HETLAB" run "$r/twin.json" --seeds "1-$SEEDS" --out "$r/twin" --param ctld_start_s="$(cat "$r/ctld_start_s")" \
		</dev/null >"$r/twin-run.out" 2>&1; then
		echo "twin: $(basename "$r"): the replay failed:"; sed 's/^/  | /' "$r/twin-run.out" | tail -n 20
		return 1
	fi
	"$HETLAB" twin check "$r/run.sacct" "$r/twin/seed-1.db" >"$r/check.txt" 2>&1
	s=1
	while [ $s -le "$SEEDS" ]; do
		"$HETLAB" twin check "$r/run.sacct" "$r/twin/seed-$s.db" --json >"$r/check-s$s.json" 2>/dev/null
		s=$((s + 1))
	done
}

fail=0
IFS=,
for W in $WORKLOADS; do
	unset IFS
	[ $MODE = replay ] || $TL gen "$W" "$OUT/$W" --jobs "$JOBS" --seed "$SEED" $GENOPT || exit 1
	bf=$(sed -n 's/^bf_interval=//p' "$OUT/$W/info")
	k=1
	while [ $k -le "$RUNS" ]; do
		if [ -n "$REUSE" ] && [ -s "$OUT/$W/run$k/run.sacct" ] && [ -s "$OUT/$W/run$k/ctld_start_s" ]; then
			[ $MODE = replay ] || echo "twin: $W run$k: the real run already there"
		else
			real_run "$W" "$OUT/$W/run$k" || fail=1
		fi
		k=$((k + 1))
	done
	if have_twin; then
		k=1
		while [ $k -le "$RUNS" ]; do
			twin_run "$OUT/$W/run$k" || fail=1
			k=$((k + 1))
		done
	else
		echo "twin: $W: no twin (hetlab twin build, or the policy slurm, is missing in $HETLAB): real runs only"
	fi
	i=1
	while [ $i -lt "$RUNS" ]; do
		j=$((i + 1))
		while [ $j -le "$RUNS" ]; do
			"$HETLAB" twin check "$OUT/$W/run$i/run.sacct" "$OUT/$W/run$j/run.sacct" --by name \
				--bf-interval "$bf" --json >"$OUT/$W/spread-$i-$j.json" 2>"$OUT/$W/spread-$i-$j.err" || fail=1
			j=$((j + 1))
		done
		i=$((i + 1))
	done
	IFS=,
done
unset IFS
echo "twin: artifacts in $OUT"
$TL summary "$OUT" || fail=1
exit $fail
