#!/bin/sh
# bench/live.sh HETLAB [RUNS] — live mode with the local executor on this
# host: N short jobs (`true`, one core each) through `hetlab live` on two
# 2-core nodes, tick 10 ms. Prints, as medians over RUNS (default 3):
#   - throughput: jobs started and ended per second, daemon to daemon;
#   - replay: `hetlab replay` of the recording (engine, policy, decision
#     comparison), and the same per recorded input;
#   - recovery: a daemon restarted on the finished state, from exec to
#     "jobs recovered" (the catch-up replay of the whole recording).
set -u
HETLAB=$1
RUNS=${2:-3}
N=${BENCH_LIVE_JOBS:-400}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-blive-XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
cat >scn.json <<'EOF'
{ "name": "bench-live", "seed": 1, "policy": "easy",
  "node_types": [ { "name": "cpu2", "cpu": "Xeon-6348", "sockets": 1, "cores": 2, "mem_gib": 8 } ],
  "racks": [ { "name": "r1", "power_kw": 15, "nodes": [ { "type": "cpu2", "count": 2, "names": ["h1", "h2"] } ] } ] }
EOF
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >tp; : >rp; : >rc; : >ins
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	printf '{ "scenario": "scn.json", "state_dir": "st%d", "tick_s": 0.01, "probes": "none", "results_every_s": 0 }\n' $i >live$i.json
	awk -v n="$N" 'BEGIN { for (k = 0; k < n; k++) print "{\"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1}, \"argv\": [\"true\"]}" }' >jobs.jsonl
	"$HETLAB" submit --config live$i.json jobs.jsonl >/dev/null || exit 1
	t0=$(now)
	"$HETLAB" live --config live$i.json --exit-when-idle -q 2>/dev/null || exit 1
	t1=$(now)
	done_n=$(sqlite3 -batch -noheader st$i/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")
	[ "$done_n" = "$N" ] || { echo "live: only $done_n of $N jobs done"; exit 1; }
	echo "$t0 $t1" | awk -v n="$N" '{ print n / ($2 - $1) }' >>tp
	nrec=$(sqlite3 -batch -noheader st$i/state.db "SELECT count(*) FROM rec")
	echo "$nrec" >>ins
	t0=$(now)
	"$HETLAB" replay st$i -q >/dev/null || { echo "live: replay differs"; exit 1; }
	t1=$(now)
	echo "$t0 $t1" | awk '{ print $2 - $1 }' >>rp
	t0=$(now)
	"$HETLAB" live --config live$i.json --max-s 0.05 2>log$i >/dev/null
	t1=$(now)
	echo "$t0 $t1" | awk '{ print $2 - $1 }' >>rc
done
tp=$(median <tp); rp=$(median <rp); rc=$(median <rc); ni=$(median <ins)
printf 'live (local executor, %d jobs of `true` on 2 x 2 cores, tick 10 ms, median of %d)\n' "$N" "$RUNS"
printf '  throughput     %.1f jobs/s (submit to end, inbox to exit file)\n' "$tp"
printf '  replay         %.3f s for %d recorded inputs (%.1f us each, process start included)\n' "$rp" "$ni" \
	"$(echo "$rp $ni" | awk '{ print $1 / $2 * 1e6 }')"
printf '  restart        %.3f s from exec to the loop, the whole recording caught up (+ 50 ms of loop)\n' "$rc"
