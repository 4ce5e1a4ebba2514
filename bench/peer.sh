#!/bin/sh
# bench/peer.sh BUILD_DIR [RUNS] [BASE_BUILD_DIR] — hetlab against an
# independent simulator on the same workload: RLScheduler's HPCSim
# (DIR-LAB/deep-batch-scheduler, a Python simulator: lists, no event queue,
# no output file) replaying the LANL-CM5 log with its EASY-style backfilling
# heuristic, and hetlab replaying it with EASY. Target (issue 34, in CPU
# time: user + system of the whole process, every thread): `hetlab run
# scenarios/lanl-cm5.json` as users run it, with its default results file,
# at most 1/10 of the peer's CPU. The wall-time ratio is printed beside it
# (the earlier target was 5x in wall time).
#
# Each of RUNS rounds (default 3) times, one after the other (the order
# reversed every other round, so that a change of the machine's load
# weighs on all alike), each through BUILD_DIR/bench/cputime (wait4):
#   peer          python3 on our driver (below), which imports the peer's
#                 HPCSimPickJobs.HPCEnv, loads the log, and runs its
#                 schedule_curr_sequence_reset(fcfs_score) with backfil=True
#                 over every job (the whole process: Python start, parse,
#                 schedule);
#   hetlab run    `hetlab run scenarios/lanl-cm5.json --out FILE` (the whole
#                 process: scenario, parse, replay, results file), and the
#                 same with --threads 1 (the results written by the engine's
#                 thread: what a sweep's runs do when they share the cores);
#   base run      the same `hetlab run` by BASE_BUILD_DIR/hetlab (the previous
#                 state, built in a worktree), when given;
#   no recorder   the same replay without a results file, as
#                 BUILD_DIR/bench/replay times it in its process (its "replay,
#                 no recorder" row: wall and CPU, which include the parse but
#                 not the process's start).
# Medians of the rounds, and the medians of the rounds' peer / hetlab ratios.
# The peer's own timers (parse, schedule) are printed from its last round.
# Other processes share the machine: the CPU figures are each process's own,
# and the ratios come from runs taken in the same rounds.
#
# The peer is not part of this repository. Its checkout is $HETLAB_PEER
# (else ../deep-batch-scheduler, a clone beside the repository); when it is missing this script says how to
# get it and exits 77 (bench/run.sh then reports the benchmark skipped). It
# runs on Debian's python3-numpy (apt-get install python3-numpy); the driver
# stubs the modules it imports at load time for its reinforcement-learning
# parts (tensorflow, gym, scipy.signal), which the heuristic never calls.
# The driver drops the 3 LANL jobs without a processor count (the peer would
# allocate -1 nodes to them and stop), as hetlab's SWF reader skips them.
set -u
BUILD=${1:-build}
RUNS=${2:-3}
BASE=${3:-}
TRACES=${HETLAB_TRACES:-../shared/traces}
PEER=${HETLAB_PEER:-../deep-batch-scheduler}
LOG=$TRACES/swf-lanl-cm5-1994/LANL-CM5-1994-4.1-cln.swf.gz
HETLAB=$BUILD/hetlab
PY=${PYTHON:-/usr/bin/python3}

if [ ! -f "$PEER/HPCSimPickJobs.py" ] || [ ! -f "$PEER/job.py" ] || [ ! -f "$PEER/cluster.py" ]; then
	echo "peer: RLScheduler's HPCSim is not at $PEER (HPCSimPickJobs.py, job.py, cluster.py)."
	echo "  Get it with: git clone https://github.com/DIR-LAB/deep-batch-scheduler $PEER"
	echo "  (or set HETLAB_PEER to a checkout) and: apt-get install python3-numpy"
	exit 77
fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "peer: $PY cannot import numpy; apt-get install python3-numpy (or set PYTHON)"
	exit 77
fi
if [ ! -f "$LOG" ]; then
	echo "peer: the LANL-CM5 log is not at $LOG (set HETLAB_TRACES)"
	exit 77
fi

if [ ! -x "$BUILD/bench/cputime" ] || [ ! -x "$BUILD/bench/replay" ]; then
	echo "peer: $BUILD/bench/cputime and $BUILD/bench/replay are needed (make $BUILD/bench/cputime $BUILD/bench/replay)"
	exit 1
fi
if [ -n "$BASE" ] && [ ! -x "$BASE/hetlab" ]; then
	echo "peer: no $BASE/hetlab (the previous state's build)"
	exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-peer-XXXXXX")
trap 'rm -rf "$T"' EXIT
gzip -dc "$LOG" >"$T/lanl.swf" || exit 1
cat >"$T/peer_easy.py" <<'EOF'
import sys, time, types
t0 = time.monotonic()
# HPCSimPickJobs imports TensorFlow, gym and SciPy at module level for its
# reinforcement-learning parts; the heuristic replay uses none of them.
def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m
class Space:
    def __init__(self, *a, **k):
        pass
stub('tensorflow'); stub('scipy'); stub('scipy.signal')
spaces = stub('gym.spaces', Box=Space, Discrete=Space)
utils = stub('gym.utils', seeding=stub('gym.utils.seeding'))
stub('gym', Env=object, spaces=spaces, utils=utils)
sys.path.insert(0, sys.argv[1])
from HPCSimPickJobs import HPCEnv
env = HPCEnv(backfil=True, job_score_type=0)
env.my_init(workload_file=sys.argv[2])
# Jobs without a processor count cannot be placed (hetlab skips them too).
env.loads.all_jobs = [j for j in env.loads.all_jobs if j.request_number_of_processors > 0]
n = env.loads.size()
env.start = 0
env.num_job_in_batch = n
env.last_job_in_batch = n
env.current_timestamp = env.loads[0].submit_time
env.job_queue = [env.loads[0]]
env.next_arriving_job_idx = 1
t1 = time.monotonic()
logs = env.schedule_curr_sequence_reset(env.fcfs_score)
t2 = time.monotonic()
print("PEER %d %.3f %.3f %.3f %.2f" % (len(logs), t1 - t0, t2 - t1, t2 - t0, sum(logs.values())))
EOF

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
CT=$BUILD/bench/cputime
# timed NAME CMD...: runs CMD through cputime; appends its wall and CPU s to
# $T/NAME.wall and $T/NAME.cpu.
timed() {
	name=$1
	shift
	"$CT" "$T/ct" "$@" || { echo "peer: $name failed"; return 1; }
	set -- $(cat "$T/ct")
	echo "$1" >>"$T/$name.wall"
	echo "$2" >>"$T/$name.cpu"
}
peer() { timed peer "$PY" "$T/peer_easy.py" "$PEER" "$T/lanl.swf" >"$T/peer.out" 2>&1 || { cat "$T/peer.out"; exit 1; }; }
hrun() { # NAME HETLAB [ARGS...]
	n=$1
	h=$2
	shift 2
	timed "$n" "$h" run scenarios/lanl-cm5.json --traces "$TRACES" --out "$T/run.db" --quiet "$@" || exit 1
	rm -f "$T/run.db"
}
norec() {
	"$BUILD/bench/replay" scenarios/lanl-cm5.json --runs 1 --traces "$TRACES" >"$T/replay.out" || exit 1
	awk '/replay, no recorder/ { print $4 }' "$T/replay.out" >>"$T/norec.wall"
	awk '/replay, no recorder/ { print $5 }' "$T/replay.out" >>"$T/norec.cpu"
}
base() { [ -z "$BASE" ] || hrun base "$BASE/hetlab"; }
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	if [ $((i % 2)) -eq 1 ]; then
		peer; hrun run "$HETLAB"; hrun run1 "$HETLAB" --threads 1; base; norec
	else
		norec; base; hrun run1 "$HETLAB" --threads 1; hrun run "$HETLAB"; peer
	fi
done
# ratio A B KIND: the median of the rounds' A / B ratios (KIND cpu or wall).
ratio() { paste "$T/$1.$3" "$T/$2.$3" | awk '{ print $1 / $2 }' | median; }
med() { median <"$T/$1.$2"; }
set -- $(grep '^PEER' "$T/peer.out")
echo "peer: LANL-CM5 EASY, RLScheduler's HPCSim ($PEER) against hetlab ($HETLAB${BASE:+; BASE_BUILD_DIR $BASE}), $RUNS rounds (medians; CPU s: user + system of the whole process)"
printf '  %-48s %7s %7s   %s\n' "" "CPU s" "wall s" "peer / hetlab: CPU, wall"
printf '  %-48s %7.2f %7.2f   (%s jobs; its parse %s s, schedule %s s, wall)\n' "peer (python3, whole process)" \
	"$(med peer cpu)" "$(med peer wall)" "$2" "$3" "$4"
line() { # NAME LABEL
	printf '  %-48s %7.2f %7.2f   %5.1fx %5.1fx' "$2" "$(med "$1" cpu)" "$(med "$1" wall)" \
		"$(ratio peer "$1" cpu)" "$(ratio peer "$1" wall)"
}
line run "hetlab run, default results file"
r=$(ratio peer run cpu)
printf '; target CPU >= 10x: %s\n' "$(echo "$r" | awk '{ print ($1 >= 10) ? "met" : "NOT met" }')"
line run1 "the same, --threads 1"
echo
line norec "hetlab replay, no results file (in-process)"
echo
if [ -n "$BASE" ]; then
	line base "previous state's hetlab run (BASE_BUILD_DIR)"
	echo
	printf '  this state / the previous state, hetlab run with its results file: CPU %.3f, wall %.3f (medians of the rounds'"'"' ratios)\n' \
		"$(ratio run base cpu)" "$(ratio run base wall)"
fi
