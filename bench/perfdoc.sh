#!/bin/sh
# bench/perfdoc.sh BUILD BASE_BUILD [RUNS] > docs/performance.md — runs the
# benchmarks on this build and on a build of an earlier commit (the previous
# state: e.g. `git worktree add ../base bae9ac3 && make -C ../base all
# $(ls bench/*.c | sed 's/\.c$//; s/^/build\//')`), one after the other in
# the same run, and writes docs/performance.md from their own output, with
# the date, the machine and both commits. RUNS (default 3) is the medians'
# count for every benchmark (the previous state's scale points: one run
# each). Run from the repository root; it takes about half an hour.
#
# Environment: HETLAB_TRACES (the trace directory, for LANL-CM5),
# HETLAB_PEER (RLScheduler's checkout, for bench/peer.sh), SCALE_POINTS
# (default 1000,10000,100000), SCALE_BASE_POINTS (default the same; one
# run each: an older state may need hours at 100,000 nodes, set it to
# 1000,10000 then).
set -u
BUILD=${1:?usage: perfdoc.sh BUILD BASE_BUILD [RUNS]}
BASE=${2:?usage: perfdoc.sh BUILD BASE_BUILD [RUNS]}
RUNS=${3:-3}
TRACES=${HETLAB_TRACES:-../shared/traces}
POINTS=${SCALE_POINTS:-1000,10000,100000}
BPOINTS=${SCALE_BASE_POINTS:-$POINTS}
export HETLAB_TRACES=$TRACES

commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)' || echo '')
bcommit=$(git -C "$BASE/.." rev-parse --short HEAD 2>/dev/null || echo '?')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-perfdoc-XXXXXX")
trap 'rm -rf "$T"' EXIT

# bench NAME CMD...: runs one benchmark into $T/NAME (output and status).
bench() {
	name=$1
	shift
	echo "perfdoc: $name" >&2
	"$@" >"$T/$name" 2>&1
	echo $? >"$T/$name.rc"
}
# block NAME: the benchmark's output as a code block (with its exit status
# when it failed or was skipped).
block() {
	echo '```'
	cat "$T/$1"
	rc=$(cat "$T/$1.rc")
	[ "$rc" = 0 ] || echo "(exit status $rc)"
	echo '```'
}
pick() { grep -m1 "$2" "$T/$1" 2>/dev/null | sed 's/^ *//'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
start=$(date -u '+%Y-%m-%d %H:%M UTC')
bench evq "$BUILD/bench/evq_hold" --runs "$RUNS"
bench evq100k "$BUILD/bench/evq_hold" --runs "$RUNS" --events 100000 --holds 5000000
bench replay-lanl "$BUILD/bench/replay" scenarios/lanl-cm5.json --runs "$RUNS" --traces "$TRACES"
bench replay-lanl-base "$BASE/bench/replay" scenarios/lanl-cm5.json --runs "$RUNS" --traces "$TRACES"
bench replay-kth "$BUILD/bench/replay" scenarios/kth-sp2.json --runs "$RUNS"
bench replay-kth-base "$BASE/bench/replay" scenarios/kth-sp2.json --runs "$RUNS"
bench peer sh bench/peer.sh "$BUILD" "$RUNS" "$BASE"
bench cons "$BUILD/bench/cons" "$BUILD/hetlab" --runs "$RUNS" --base "$BASE/hetlab"
bench cons-base "$BUILD/bench/cons" "$BASE/hetlab" --runs "$RUNS"
bench sweep "$BUILD/bench/sweep" "$BUILD/hetlab" --runs "$RUNS"
bench sweep-base "$BUILD/bench/sweep" "$BASE/hetlab" --runs "$RUNS"
bench scale "$BUILD/bench/scale" "$BUILD/hetlab" --points "$POINTS" --runs "$RUNS" --big-runs "$RUNS"
bench scale-base "$BUILD/bench/scale" "$BASE/hetlab" --points "$BPOINTS" --runs 1
bench gen "$BUILD/bench/gen" --runs "$RUNS"
bench gen-base "$BASE/bench/gen" --runs "$RUNS"
bench pass "$BUILD/bench/pass" --runs "$RUNS"
bench pass-base "$BASE/bench/pass" --runs "$RUNS"
bench frag "$BUILD/bench/frag" --runs 1
bench frag-base "$BASE/bench/frag" --runs 1
bench live sh bench/live.sh "$BUILD/hetlab" "$RUNS"
bench longevity sh bench/live-longevity.sh "$BUILD/hetlab" 1000 3000 10000
bench longevity-instant env BENCH_EXECUTOR=instant BENCH_MODES=100 BENCH_BATCH=1000 sh bench/live-longevity.sh "$BUILD/hetlab" 10000 100000 1000000
bench twin sh bench/twin-speed.sh "$BUILD/hetlab" --runs "$RUNS" --kinds national,campus:1 --base "$BASE/hetlab"
end=$(date -u '+%H:%M UTC')
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)

cat <<EOF
# Performance

This page is written by \`bench/perfdoc.sh\` from the benchmarks' own
output (below, unedited). Each figure of this commit stands beside the
same figure of the previous state, measured in the same run: ratios are
taken within a run, never against another day's figures (the machine is
shared and its speed varies). \`make bench\` runs the benchmarks alone
(\`sh bench/run.sh build\`); none of them is part of \`make test\`.

- **Run:** $start to $end, \`sh bench/perfdoc.sh $BUILD $BASE $RUNS\`;
  medians of $RUNS unless a benchmark says otherwise.
- **Commits:** this state $commit$dirty; the previous state $bcommit
  (built in a scratch worktree, its build folder $BASE).
- **Machine:** $(nproc 2>/dev/null || echo '?') CPUs (${cpu:-unknown CPU}), $mem; load average $load0 at
  the start and $load1 at the end (other sessions share the machine: the
  times are the process's own CPU time where a benchmark says so).

## Targets

| target | this state | previous state |
| --- | --- | --- |
| event queue: hold rate at 1 M pending, at least 2x the previous queue | $(pick evq 'today / base') | $(pick evq 'base (bae9ac3)') |
| against RLScheduler's HPCSim on LANL-CM5 EASY, hetlab run with its results file, at most 1/10 of its CPU (CPU s, wall s, peer / hetlab in CPU and wall) | $(pick peer 'default results file') | $(pick peer "previous state's hetlab run") |
| the same without the results file | $(pick peer 'no results file') | |
| LANL-CM5 EASY: the results file at most 1.5x the CPU of the replay without it | $(pick replay-lanl 'target: the results file') | $(pick replay-lanl-base 'recorder (events):') |
| LANL-CM5 EASY: the replay with its results file at most 3x the CPU of the parse alone | $(pick replay-lanl 'target: the replay with') | $(pick replay-lanl-base 'replay / parse') |
| sweep: CPU per run at -j 2 within 5 % of -j 1 on one core | $(pick sweep 'CPU per run') | $(pick sweep-base 'CPU per run') |
| conservative at most 3x EASY: 28,475-job gang workload on 68 nodes of two shapes | $(grep -A1 '^  gang' "$T/cons" | tail -1 | sed 's/^ *//') | $(grep -A1 '^  gang' "$T/cons-base" | tail -1 | sed 's/^ *//') |
| conservative at most 3x EASY: scenarios/guian.json at 1.4x arrivals | $(grep -A1 '^  guian1.4' "$T/cons" | tail -1 | sed 's/^ *//') | $(pick cons 'conservative of') |
| sweep -j 2 efficiency at least 90 % (40 runs) | $(pick sweep 'medians of the rounds') | $(pick sweep-base 'medians of the rounds') |
| scale: cost per job at the largest point within 30 % of the smallest | $(pick scale 'cost per job at') | $(pick scale-base 'cost per job at') |
| scale: 100,000 nodes, 10 M jobs, under 600 s and 16 GiB | $(pick scale 's wall, ') | $(pick scale-base 's wall, ') |
| the Slurm twin: a month of a 1,000-node site at 100,000x real time or more, in CPU seconds | $(pick twin '^twin-speed: national') | $(pick twin '^  base ') |

## Event queue (\`evq_hold\`)

The hold model at 1,000,000 and 100,000 pending events: each repetition
times the queue of the previous state (\`bench/evq_base.h\`, a copy) and
this one on the same holds, in thread CPU time.

$(block evq)

$(block evq100k)

## Trace replay (\`replay\`)

Parse only, the replay without a results file, and with it (LANL-CM5 from
the trace directory, KTH-SP2 from the repository). A replay is exactly
what \`hetlab run\` does: it is assembled by the same composition root
(\`run_assemble\`, [engine.md](engine.md#assembling-a-run-the-composition-root)),
health monitor included. The recorder is another issue's; where it
dominates, that is its figure.

This state:

$(block replay-lanl)

The previous state:

$(block replay-lanl-base)

This state:

$(block replay-kth)

The previous state:

$(block replay-kth-base)

## Against RLScheduler's HPCSim (\`bench/peer.sh\`)

CPU time (user + system of the whole process, every thread) beside wall
time; the previous state's \`hetlab run\` is timed in the same rounds.

$(block peer)

## Conservative backfilling (\`cons\`)

This state:

$(block cons)

The previous state's hetlab on the same workloads:

$(block cons-base)

## Sweeps (\`sweep\`)

This state:

$(block sweep)

The previous state:

$(block sweep-base)

## The guian scenario grown (\`scale\`)

This state:

$(block scale)

\`CPU us/job\` is the run's user and system time a job (wait4), split into
\`user us/job\` and \`sys us/job\`. On a virtual machine the kernel's part
grows with the memory a run touches for the first time (the results
file's page cache and the run's own pages: the host backs each new page
as it is touched), so the user-space ratio is printed beside the target's.

The previous state's hetlab on the same scenario, measured by this
bench/scale (\`faults/job\`: the run's minor page faults a job, from wait4):

$(block scale-base)

## Workload generation (\`gen\`)

$(block gen)

The previous state:

$(block gen-base)

## A scheduling pass at scale (\`pass\`)

$(block pass)

The previous state:

$(block pass-base)

## The FGD fragmentation experiment (\`frag\`)

$(block frag)

The previous state:

$(block frag-base)

## Live mode (\`bench/live.sh\`)

$(block live)

## A live daemon as its history grows (\`bench/live-longevity.sh\`)

Jobs of \`true\` through the daemon with the local executor, submitted 200
at a time while it runs, with ended jobs dropped from the engine
(\`keep_ended\` 100) and kept (0); the daemon's resident memory while it
runs, its CPU per job, a restart's time to its loop, the state's size
(docs/live.md "Ended jobs leave the engine"). A restart loads the
daemon's last snapshot and replays only the recording after it
(docs/live.md "Snapshots"); the state still keeps every row, so its size
grows with the history until old rows are archived.

$(block longevity)

The same through the \`instant\` executor (docs/executors.md: jobs end at
once in the daemon, every other part of its path the real one), which
reaches a million jobs over the state's life, ended jobs dropped:

$(block longevity-instant)

## The Slurm twin over a month (\`bench/twin-speed.sh\`)

A synthetic site's month as its administrator would dump it
(\`bench/twinsite.py\`, seed 1): the twin built from its slurm.conf,
sacctmgr and sacct dumps, replayed as a user runs it (its results file at
the default level). The speed is the history's 30 days over the replay's
CPU time (user + system). \`national\` is shaped on ARCHER2 (the system
HPE's FastSim replays at about 400x): 128-core nodes given whole, about
27,000 jobs; \`campus\` is a university cluster of shared 64-core nodes,
a tenth with A100s, and ten times the jobs (about 280,000), replayed once.
The previous state runs the national site only.

$(block twin)
EOF
