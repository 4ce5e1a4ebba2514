#!/bin/sh
# bench/run.sh BUILD_DIR — runs the benchmarks built into BUILD_DIR/bench and
# prints their figures (`make bench` calls it after building them). Run from
# the repository root. BENCH_RUNS sets the repetitions per figure (default 5).
#
# The LANL-CM5 replay reads its trace from $HETLAB_TRACES (else
# ../shared/traces); when the trace is not there it is skipped with a note,
# not failed; so are bench/peer.sh without RLScheduler's checkout
# ($HETLAB_PEER) and bench/slurm-live.sh without root and Slurm.
# BENCH_SCALE_POINTS sets the scale benchmark's cluster sizes (default
# 1000,10000,100000: the last takes minutes). BENCH_BASE names the build
# folder of a previous state for bench/peer.sh to time in the same rounds
# (docs/performance.md). Exit status: 0, or 1 when a
# benchmark failed or crashed.

build=${1:-build}
runs=${BENCH_RUNS:-5}
traces=${HETLAB_TRACES:-../shared/traces}
status=0

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "hetlab benchmarks: $(nproc 2>/dev/null || echo '?') CPUs, ${cpu:-unknown CPU}"
echo

# run NAME CMD...: runs one benchmark; exit 77 means "input missing, skipped".
run() {
	name=$1
	shift
	"$@"
	rc=$?
	if [ "$rc" -eq 77 ]; then
		echo "$name: skipped (input missing)"
		return 77
	elif [ "$rc" -ne 0 ]; then
		echo "$name: FAILED (exit status $rc)"
		status=1
	fi
	echo
	return 0
}

run evq_hold "$build/bench/evq_hold" --runs "$runs"
run sqlrows "$build/bench/sqlrows" --runs "$runs"
run replay-kth "$build/bench/replay" scenarios/kth-sp2.json --runs "$runs"
run gen "$build/bench/gen" --runs "$runs"
run frag "$build/bench/frag" --runs 1 -j 2 --traces "$traces/alibaba-gpu-v2023-openb"
run pass "$build/bench/pass" --runs "$runs"
run metrics "$build/bench/metrics" --runs "$runs"
run cons "$build/bench/cons" "$build/hetlab" --runs "$runs"
run sweep "$build/bench/sweep" "$build/hetlab" --runs "$runs"
run scale "$build/bench/scale" "$build/hetlab" --points "${BENCH_SCALE_POINTS:-1000,10000,100000}" --runs 1
run live sh bench/live.sh "$build/hetlab" 3
run live-longevity sh bench/live-longevity.sh "$build/hetlab" 1000 3000 10000
# Live mode on a real local Slurm cluster (root and Debian's Slurm packages;
# otherwise it says how to get them and is skipped).
run slurm-live sh bench/slurm-live.sh "$build/hetlab"
if ! run replay-lanl "$build/bench/replay" scenarios/lanl-cm5.json --runs "$runs" --traces "$traces"; then
	echo "  The LANL-CM5 log (LANL-CM5-1994-4.1-cln.swf.gz) is not under $traces/swf-lanl-cm5-1994/."
	echo "  Get it from the Parallel Workloads Archive,"
	echo "  https://www.cs.huji.ac.il/labs/parallel/workload/l_lanl_cm5/ , put it there"
	echo "  (or in DIR/swf-lanl-cm5-1994/ and set HETLAB_TRACES=DIR), and run make bench again."
	echo
fi
# BENCH_BASE: the previous state's build folder, timed beside this one.
run peer sh bench/peer.sh "$build" "$runs" ${BENCH_BASE:+"$BENCH_BASE"}
# The Slurm twin over a month of a synthetic 1,000-node site (minutes).
run twin-speed sh bench/twin-speed.sh "$build/hetlab" --runs "$runs"
exit $status
