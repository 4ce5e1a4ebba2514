#!/bin/sh
# bench/peer.sh BUILD_DIR [RUNS] — hetlab against an independent simulator on
# the same workload: RLScheduler's HPCSim (DIR-LAB/deep-batch-scheduler, a
# Python simulator: lists, no event queue, no output file) replaying the
# LANL-CM5 log with its EASY-style backfilling heuristic, and hetlab replaying
# it with EASY. Target: `hetlab run scenarios/lanl-cm5.json` as users run it,
# with its default results file, at least 5x faster than the peer.
#
# Each of RUNS rounds (default 3) times, one after the other:
#   peer          python3 on our driver (below), which imports the peer's
#                 HPCSimPickJobs.HPCEnv, loads the log, and runs its
#                 schedule_curr_sequence_reset(fcfs_score) with backfil=True
#                 over every job (the whole process: Python start, parse,
#                 schedule);
#   hetlab run    `hetlab run scenarios/lanl-cm5.json --out FILE` (the whole
#                 process: scenario, parse, replay, results file);
#   no recorder   the same replay without a results file, as
#                 BUILD_DIR/bench/replay times it (its "replay, no recorder"
#                 total, which includes the parse).
# Medians of the rounds, and the median of the rounds' peer / hetlab ratios.
# The peer's own timers (parse, schedule) are printed from its last round.
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

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$T/peer"; : >"$T/run"; : >"$T/norec"; : >"$T/ratio"; : >"$T/ratio0"
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	a=$(now)
	"$PY" "$T/peer_easy.py" "$PEER" "$T/lanl.swf" >"$T/peer.out" 2>&1 || { cat "$T/peer.out"; exit 1; }
	b=$(now)
	"$HETLAB" run scenarios/lanl-cm5.json --traces "$TRACES" --out "$T/run.db" --quiet || exit 1
	c=$(now)
	rm -f "$T/run.db"
	"$BUILD/bench/replay" scenarios/lanl-cm5.json --runs 1 --traces "$TRACES" >"$T/replay.out" || exit 1
	nr=$(awk '/replay, no recorder/ { print $4 }' "$T/replay.out")
	p=$(echo "$a $b" | awk '{ print $2 - $1 }')
	h=$(echo "$b $c" | awk '{ print $2 - $1 }')
	echo "$p" >>"$T/peer"
	echo "$h" >>"$T/run"
	echo "$nr" >>"$T/norec"
	echo "$p $h" | awk '{ print $1 / $2 }' >>"$T/ratio"
	echo "$p $nr" | awk '{ print $1 / $2 }' >>"$T/ratio0"
done
set -- $(grep '^PEER' "$T/peer.out")
echo "peer: LANL-CM5 EASY, RLScheduler's HPCSim ($PEER) against hetlab, $RUNS rounds (medians, wall s)"
printf '  peer (python3, whole process)       %7.2f s   (%s jobs; its parse %s s, schedule %s s)\n' \
	"$(median <"$T/peer")" "$2" "$3" "$4"
printf '  hetlab run, default results file    %7.2f s   peer / hetlab %.1fx; target >= 5x: %s\n' \
	"$(median <"$T/run")" "$(median <"$T/ratio")" \
	"$(median <"$T/ratio" | awk '{ print ($1 >= 5) ? "met" : "NOT met" }')"
printf '  hetlab replay, no results file      %7.2f s   peer / hetlab %.1fx\n' \
	"$(median <"$T/norec")" "$(median <"$T/ratio0")"
