#!/bin/sh
# bench/forecast.sh HETLAB [RUNS] — how good are hetlab's forecasts of when
# pending jobs start (docs/forecast.md "Accuracy"), with the local
# executor: BENCH_FORECAST_JOBS jobs (default 300) of three users who ask
# for whole minutes and use seconds (as real users over-estimate), through
# `hetlab live` on six 4-core nodes under EASY backfilling, arriving over
# about 45 s. bench/forecast.py submits them and, for every waiting job at
# its first forecast and every BENCH_FORECAST_POLL_S (3 s: the issue's
# 30 s, scaled as the jobs are) while it waits, reads `hetlab forecast`:
# hetlab's p50 (and p10, p90) and the limit-based start (every job runs to
# its time limit: what `squeue --start` assumes). Per run: the median
# absolute error of each against the actual start, the share of actual
# starts inside p10-p90, wall time and CPU time (user+sys: the daemon, its
# forecasts, the clients). RUNS runs (default 3, seeds 1..RUNS); the last
# line has the medians over them:
#   forecast: N jobs, hetlab median abs error H s, limit-based S s, p10-p90 coverage C %
set -u
HETLAB=$1
RUNS=${2:-3}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-bfcst-XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
cat >scn.json <<'EOJ'
{ "name": "bench-forecast", "seed": 1, "policy": "easy",
  "node_types": [ { "name": "cpu4", "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 16 } ],
  "racks": [ { "name": "r1", "power_kw": 15, "nodes": [ { "type": "cpu4", "count": 6 } ] } ],
  "org": { "tenants": [ { "name": "ann", "shares": 1 }, { "name": "bob", "shares": 1 }, { "name": "cyd", "shares": 1 } ] } }
EOJ
# One run: the daemon and the driver, timed (wall, and CPU of everything
# they ran, waited for).
cat >run.sh <<'EOS'
HETLAB=$1 HERE=$2 i=$3
printf '{ "scenario": "scn.json", "executor": "local", "state_dir": "st%s", "tick_s": 0.05, "probes": "none", "results_every_s": 0 }\n' "$i" >live$i.json
"$HETLAB" live --config live$i.json --max-s 900 -q 2>daemon$i.log &
D=$!
BENCH_FORECAST_SEED=$i python3 "$HERE/forecast.py" "$HETLAB" live$i.json st$i/state.db >result$i.txt
rc=$?
kill "$D"
wait "$D"
[ $rc -eq 0 ] || { cat daemon$i.log >&2; exit 1; }
EOS
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	python3 -c "
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(['sh', 'run.sh', '$HETLAB', '$HERE', '$i'])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print('%.1f %.1f' % (time.time() - t, r.ru_utime + r.ru_stime), file=open('time$i.txt', 'w'))
sys.exit(rc)" || exit 1
	echo "run $i: $(head -n 1 result$i.txt); wall $(cut -d' ' -f1 time$i.txt) s, cpu $(cut -d' ' -f2 time$i.txt) s"
	echo "       $(tail -n 1 result$i.txt)"
done
python3 - "$RUNS" <<'EOP'
import re, statistics, sys
n = int(sys.argv[1])
pat = r"forecast: (\d+) jobs, hetlab median abs error ([0-9.]+) s, limit-based ([0-9.]+) s, p10-p90 coverage ([0-9.]+) %"
rows = [re.search(pat, open("result%d.txt" % i).read()).groups() for i in range(1, n + 1)]
times = [open("time%d.txt" % i).read().split() for i in range(1, n + 1)]
med = lambda k: statistics.median(float(r[k]) for r in rows)
print("medians of %d runs: wall %.1f s, cpu (user+sys) %.1f s" % (n, statistics.median(float(t[0]) for t in times),
      statistics.median(float(t[1]) for t in times)))
print("forecast: %d jobs, hetlab median abs error %.1f s, limit-based %.1f s, p10-p90 coverage %.0f %%"
      % (med(0), med(1), med(2), med(3)))
EOP
