# Sourced by tests/live/run.sh (its helpers, in $T): forecasts and reasons
# (docs/forecast.md, issue 32 items 1 and 2).
#
# 22. One node of 2 cores under EASY. Six short jobs with 10-minute limits
#     teach the predictor that jobs here take a small share of their limit;
#     then a 2-core job runs, another 2-core job and a 1-core job wait.
#     The forecast (hetlab forecast, the socket) gives both a p50 start far
#     before the limit-based one and names why each waits, from the policy
#     (the first in the queue: no node with 2 free cores; the next: behind
#     the reservation of the first); hetlab why says the same; /metrics has
#     the gauge; hetlab queue has a START_P50 column; submit --dry-run
#     says what would hold a new job and when it would start; state.db and
#     its WAL are byte-identical across forecasts and a dry run, and the
#     replay makes the same decisions.

cat >scn-fc.json <<'EOJ'
{ "name": "live-forecast", "seed": 1, "policy": "easy",
  "node_types": [ { "name": "cpu2", "cpu": "Xeon-6348", "sockets": 1, "cores": 2, "mem_gib": 8 } ],
  "racks": [ { "name": "r1", "power_kw": 15, "nodes": [ { "type": "cpu2", "count": 1, "names": ["f1"] } ] } ] }
EOJ
printf '{ "scenario": "scn-fc.json", "executor": "local", "state_dir": "st-fc", "tick_s": 0.05, "probes": "none", "metrics": {"port": 0} }\n' >fc.json
fcjob() { # CORES SECONDS
	printf '{"class": "batch", "walltime_us": 600000000, "req": {"nodes": 1, "cores": %s}, "argv": ["sleep", "%s"]}\n' "$1" "$2"
}
for i in 1 2 3 4 5 6; do fcjob 1 0.2; done >jobs-fc1.jsonl
"$HETLAB" submit --config fc.json jobs-fc1.jsonl >/dev/null
timeout 90 "$HETLAB" live --config fc.json --max-s 60 2>log-fc &
DAEMON=$!
for i in $(seq 1 200); do
	[ "$(q st-fc/state.db "SELECT count(*) FROM jobs WHERE state = 'done'" 2>/dev/null)" = 6 ] 2>/dev/null && break
	sleep 0.05
done
{ fcjob 2 30; fcjob 2 0.2; fcjob 1 0.2; } >jobs-fc2.jsonl
"$HETLAB" submit --config fc.json jobs-fc2.jsonl >/dev/null
# The first forecast that has both waiting jobs (7 and 8).
fc=
for i in $(seq 1 100); do
	fc=$("$HETLAB" forecast --config fc.json --json 2>/dev/null)
	case $fc in *'"id":7'*'"id":8'*) break ;; esac
	sleep 0.1
done
fcget() { # JOB FIELD: a forecast field (times relative to the forecast's)
	printf '%s' "$fc" | python3 -c "import sys, json
f = json.load(sys.stdin); j = [r for r in f['jobs'] if r['id'] == $1][0]; v = j['$2']
print(v if isinstance(v, str) else ('-' if v is None else round(v - f['at'])))"
}
check_eq "forecast: both waiting jobs forecast" "$(printf '%s' "$fc" | grep -c '"id":7.*"id":8')" 1
check_eq "forecast: the learned p90 is well before the limit-based start (job 7)" \
	"$([ "$(fcget 7 p90)" -lt 120 ] && [ "$(fcget 7 limit)" -gt 500 ] && echo yes)" yes
check_eq "forecast: p10 <= p50 <= p90 (job 8)" \
	"$([ "$(fcget 8 p10)" -le "$(fcget 8 p50)" ] && [ "$(fcget 8 p50)" -le "$(fcget 8 p90)" ] && echo yes)" yes
check_eq "forecast: the limit-based start of job 8 is after job 7's" \
	"$([ "$(fcget 8 limit)" -gt "$(fcget 7 limit)" ] && echo yes)" yes
check_eq "forecast: the first in the queue waits for 2 free cores (from the policy)" \
	"$(fcget 7 why)" "first in the queue; 2 cores: no node with 2 free cores (0 of 1 suitable node have room; most free: 0 on f1)"
check_eq "forecast: the next waits behind its reservation" \
	"$(fcget 8 why | sed 's/.*; //')" "behind the reservation of job 7"
out=$("$HETLAB" why --config fc.json 8 2>&1)
check_eq "forecast: hetlab why names the reservation and gives the forecast" \
	"$(printf '%s\n' "$out" | grep -c -e '^job 8 waits: .*behind the reservation of job 7$' -e '^predicted start .*p50 +')" 2
check_eq "forecast: hetlab forecast lists both jobs" \
	"$("$HETLAB" forecast --config fc.json 2>&1 | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" "7 8 "
out=$("$HETLAB" queue --config fc.json 2>&1)
check_eq "forecast: hetlab queue has START_P50 after START_S, a start for each waiting job, - for the running one" \
	"$(printf '%s\n' "$out" | awk 'NR == 1 { print $8, $9 } NR > 1 && /^ *[0-9]+  / { print $1, $6, ($9 ~ /^[+]/ ? "+" : $9) }' | tr '\n' ' ')" \
	"START_S START_P50 6 running - 7 pending + 8 pending + "
check_eq "forecast: hetlab queue's last line is as it was" "$(printf '%s\n' "$out" | tail -n 1)" \
	"3 jobs not finished; 0 submitted and not yet taken by the daemon"
out=$("$HETLAB" why --config fc.json 5 2>&1)
check_eq "forecast: hetlab why of a job that does not wait says so (exit 1)" \
	"$?:$(printf '%s' "$out" | grep -c 'job 5 does not wait')" "1:1"
port=$(port_of log-fc)
check_eq "forecast: /metrics has the p50 gauge of job 7" \
	"$(fetch /metrics | grep -c '^hetlab_forecast_start_seconds{job="7",quantile="0.5"} ')" 1
# Read-only: while job 6 runs and nothing else happens, forecasts go on
# (their time moves) and the state's files do not change by a byte.
sum1=$(cat st-fc/state.db st-fc/state.db-wal 2>/dev/null | md5sum)
at1=$(printf '%s' "$fc" | sed 's/.*"at":\([0-9.]*\).*/\1/')
# A dry run (in the window: it writes nothing either): what would hold a
# 1-core job submitted now, and when it would start; a job no node can
# hold is refused as a submission is.
out=$("$HETLAB" submit --config fc.json --dry-run --job "$(fcjob 1 1)" 2>&1)
check_eq "forecast: submit --dry-run names what would hold the job, its forecast, and submits nothing" \
	"$?:$(printf '%s\n' "$out" | grep -c -e '^dry run: the job would wait: .*behind the reservation of job 7$' \
		-e '^predicted start (20 draws): p10 +.*p50 +.*every job to its time limit: +' -e '^nothing was submitted$')" "0:3"
out=$("$HETLAB" submit --config fc.json --dry-run --job "$(fcjob 8 1)" 2>&1)
check_eq "forecast: submit --dry-run of a job no node can hold is refused (exit 1)" \
	"$?:$(printf '%s' "$out" | grep -c 'could never run')" "1:1"

for i in $(seq 1 60); do
	at2=$("$HETLAB" forecast --config fc.json --json 2>/dev/null | sed 's/^{"at":\([0-9.]*\).*/\1/')
	[ "$(python3 -c "print(int($at2 - $at1 >= 4))")" = 1 ] && break
	sleep 0.1
done
sum2=$(cat st-fc/state.db st-fc/state.db-wal 2>/dev/null | md5sum)
check_eq "forecast: later forecasts were made meanwhile" "$(python3 -c "print(int($at2 - $at1 >= 4))")" 1
check_eq "forecast: state.db and its WAL are byte-identical across forecasts and a dry run" "$sum2" "$sum1"
check_eq "forecast: job 6 still ran then (nothing else happened)" "$(q st-fc/state.db "SELECT state FROM jobs WHERE id = 6")" running
wait "$DAEMON"
DAEMON=
check_eq "forecast: every job done" "$(q st-fc/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" 9
replay_same forecast fc
