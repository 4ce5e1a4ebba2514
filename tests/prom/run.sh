#!/bin/sh
# Prometheus, for real: a simulated run exported with `hetlab export
# openmetrics`, imported with promtool (create-blocks-from openmetrics),
# read back with `promtool tsdb dump` and queried through a real Prometheus
# server started on the blocks (the dashboard's own expressions, checked
# against the results database); then a second Prometheus scraping a live
# daemon's /metrics (the histograms and the per-tenant families). Every
# server listens on 127.0.0.1 only and is stopped by the test.
#
# Installs Debian's prometheus package when it is missing and this is root;
# prints SKIP and exits 0 when it cannot have promtool and prometheus.
#
# usage: tests/prom/run.sh HETLAB
set -u
HETLAB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(pwd)
TMP=$(mktemp -d)
PIDS=""
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/     /'; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
skip() { echo "SKIP Prometheus tests: $1"; echo "prom: 0 passed, 0 failed, 1 skipped"; exit 0; }

if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
	[ "$(id -u)" = 0 ] || skip "promtool and prometheus are missing (apt-get install prometheus)"
	echo "prom: installing the prometheus package"
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus ||
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; }; } \
		>"$TMP/apt.log" 2>&1 || skip "cannot install prometheus: $(tail -1 "$TMP/apt.log")"
	command -v promtool >/dev/null && command -v prometheus >/dev/null || skip "the prometheus package has no promtool"
fi
command -v curl >/dev/null || skip "curl is missing"
command -v sqlite3 >/dev/null || skip "sqlite3 is missing"

q() { sqlite3 -batch -noheader "$TMP/run.db" "$1"; }
# A free-looking port in 20000-39999 (retried on a clash).
port() { echo $((20000 + ($$ * 7 + $1 * 131 + $(date +%N | sed 's/^0*//;s/^$/0/') % 1000) % 20000)); }
# start_prom NAME CONFIG DATA: starts a server on 127.0.0.1, sets PROM to its URL.
start_prom() {
	for try in 1 2 3 4 5; do
		p=$(port "$try")
		prometheus --config.file="$2" --storage.tsdb.path="$3" --storage.tsdb.retention.time=100y \
			--web.listen-address="127.0.0.1:$p" --log.level=warn >"$TMP/$1.log" 2>&1 &
		pid=$!
		PIDS="$PIDS $pid"
		PROM="http://127.0.0.1:$p"
		i=0
		while [ $i -lt 300 ]; do
			curl -sf "$PROM/-/ready" >/dev/null 2>&1 && return 0
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
			i=$((i + 1))
		done
		kill "$pid" 2>/dev/null
	done
	return 1
}
# query EXPR TIME: the first result's value (empty when none).
query() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2" |
		sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
}
nresults() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2" |
		grep -o '"metric":' | wc -l
}

# ---- a simulated week, imported with promtool ----------------------------
ORIGIN=1767571200   # 2026-01-05T00:00:00Z
"$HETLAB" run -q --out "$TMP/run.db" >/dev/null 2>&1 || { bad "hetlab run"; exit 1; }
"$HETLAB" export openmetrics "$TMP/run.db" --origin 2026-01-05 --out "$TMP/run.om" || bad "export openmetrics"
if promtool tsdb create-blocks-from openmetrics "$TMP/run.om" "$TMP/data" >"$TMP/import.log" 2>&1; then
	ok "promtool tsdb create-blocks-from openmetrics imports the export"
else
	bad "promtool import" "$(tail -5 "$TMP/import.log")"
	echo "prom: $pass passed, $fail failed"
	exit 1
fi
span=$(q 'SELECT (max(t_us) - min(t_us)) / 86400000000.0 >= 7 FROM sample')
check_eq "the run spans a simulated week" "$span" 1
# a sample in the middle of the run, read back from the blocks
T_US=$(q 'SELECT t_us FROM sample ORDER BY t_us LIMIT 1 OFFSET (SELECT count(*) / 2 FROM sample)')
T=$((ORIGIN + T_US / 1000000))
cores=$(q "SELECT cores_alloc FROM sample WHERE t_us = $T_US")
dump=$(promtool tsdb dump --match='hetlab_cores_allocated' --min-time=$((T * 1000)) --max-time=$((T * 1000)) "$TMP/data" 2>/dev/null)
case "$dump" in
*"hetlab_cores_allocated"*" $cores $((T * 1000))"*) ok "promtool tsdb dump has the run's cores_alloc at its time" ;;
*) bad "promtool tsdb dump" "want $cores at $((T * 1000)), got: $(echo "$dump" | head -2)" ;;
esac

: > "$TMP/empty.yml"
if start_prom sim "$TMP/empty.yml" "$TMP/data"; then
	ok "prometheus serves the imported blocks"
	pend=$(q "SELECT pending FROM sample WHERE t_us = $T_US")
	check_eq "query: sum(hetlab_jobs{state=\"pending\"}) = the sample's queue length" \
		"$(query 'sum(hetlab_jobs{state="pending"})' "$T")" "$pend"
	ratio=$(q "SELECT printf('%.6f', gpus_alloc * 1.0 / gpus_total) FROM sample WHERE t_us = $T_US")
	check_eq "query: hetlab_gpus_allocated_ratio" "$(printf '%.6f' "$(query 'hetlab_gpus_allocated_ratio' "$T")")" "$ratio"
	sub=$(q "SELECT count(*) FROM job WHERE submit_us <= $T_US")
	check_eq "query: hetlab_job_submits_total" "$(query 'hetlab_job_submits_total' "$T")" "$sub"
	started=$(q "SELECT count(*) FROM job WHERE start_us IS NOT NULL AND start_us <= $T_US")
	check_eq "query: hetlab_job_wait_seconds_count = jobs started by then" \
		"$(query 'hetlab_job_wait_seconds_count' "$T")" "$started"
	p50=$(query 'histogram_quantile(0.5, hetlab_job_wait_seconds_bucket)' "$T")
	[ -n "$p50" ] && [ "$p50" != "NaN" ] && ok "query: histogram_quantile over the wait histogram ($p50 s)" ||
		bad "histogram_quantile" "$p50"
	# running then: a job's last start, requeue or end by T is a start (the
	# job row holds only a job's last start; a preempted job ran before it)
	tg=$(q "SELECT coalesce(sum(gpus), 0) FROM job WHERE id IN (SELECT job FROM event WHERE kind IN ('start', 'requeue', 'end') AND t_us <= $T_US GROUP BY job HAVING max(CASE WHEN kind = 'start' THEN seq END) = max(seq))")
	check_eq "query: sum(hetlab_tenant_gpus_allocated) = GPUs of the jobs running then" \
		"$(query 'sum(hetlab_tenant_gpus_allocated)' "$T")" "$tg"
	# the dashboard's queries: every panel fed by a simulated run has data
	DASH=$SRC/docs/grafana/hetlab-live.json
	n=0
	for expr in 'hetlab_gpus_allocated_ratio' 'sum(hetlab_gpus_total)' 'hetlab_gpus_allocated' \
	            'sum by (class) (hetlab_jobs{state="pending"})' 'sum by (class) (hetlab_jobs{state=~"running|checkpointing"})' \
	            'rate(hetlab_job_starts_total[1h])' 'sum by (state) (rate(hetlab_job_ends_total[1h]))' \
	            'rate(hetlab_job_submits_total[1h])' 'hetlab_rack_power_watts' 'hetlab_up' 'time() - hetlab_start_time_seconds' \
	            'histogram_quantile(0.95, sum by (le) (increase(hetlab_job_wait_seconds_bucket[1h])))' \
	            'hetlab_tenant_gpus_allocated' 'hetlab_tenant_cores_allocated'; do
		probe=$(printf '%s' "$expr" | sed 's/\[1h\]/[$__rate_interval]/')
		tr -d '\\"' < "$DASH" | grep -qF "$(printf '%s' "$probe" | tr -d '"')" || bad "the dashboard has the query $expr"
		[ "$(nresults "$expr" "$T")" -gt 0 ] || bad "dashboard query $expr has data at $T"
		n=$((n + 1))
	done
	ok "the dashboard's $n cluster and job queries have data for the simulated week"
else
	bad "prometheus on the imported blocks" "$(tail -5 "$TMP/sim.log")"
fi

# ---- a real Prometheus scraping a live daemon ----------------------------
cd "$TMP" || exit 1
mkdir -p live && cp "$SRC"/scenarios/live/scenario.json live/
MP=$(port 9)
cat > live/live.json <<EOF
{ "scenario": "scenario.json", "executor": "local", "state_dir": "st", "tick_s": 0.2,
  "probe_every_s": 0.5, "probes": "host", "hot_c": 200, "metrics": { "addr": "127.0.0.1", "port": $MP } }
EOF
job() { printf '{"name": "j%s", "class": "batch", "tenant": %s, "req": {"nodes": 1, "cores": 1}, "argv": ["sleep", "%s"]}\n' "$1" "$2" "$3"; }
{ job 1 0 8; job 2 1 8; job 3 0 0.2; } > live/jobs.jsonl
cat > "$TMP/scrape.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: hetlab
    static_configs: [ { targets: ["127.0.0.1:$MP"] } ]
EOF
if start_prom live "$TMP/scrape.yml" "$TMP/data-live"; then
	(cd live && "$HETLAB" submit --config live.json jobs.jsonl >/dev/null) || bad "hetlab submit"
	(cd live && exec timeout 60 "$HETLAB" live --config live.json --exit-when-idle -q 2>../live.log) &
	PIDS="$PIDS $!"
	got="" i=0
	while [ $i -lt 100 ]; do
		now=$(date +%s)
		up=$(query 'up{job="hetlab"}' "$now")
		cnt=$(query 'hetlab_job_wait_seconds_count' "$now")
		ten=$(nresults 'hetlab_tenant_cores_allocated > 0' "$now")
		if [ "$up" = 1 ] && [ "${cnt:-0}" -ge 2 ] 2>/dev/null && [ "$ten" -ge 1 ]; then
			got=yes
			break
		fi
		sleep 0.2
		i=$((i + 1))
	done
	if [ -n "$got" ]; then
		ok "prometheus scrapes the live daemon: up, hetlab_job_wait_seconds, per-tenant allocation"
		nb=$(nresults 'hetlab_job_wait_seconds_bucket' "$now")
		check_eq "the live wait histogram has its 11 buckets" "$nb" 11
		[ "$(nresults 'hetlab_scheduling_pass_duration_seconds_bucket' "$now")" = 8 ] &&
			ok "the live pass-duration histogram is scraped (8 buckets)" || bad "pass histogram buckets"
		[ "$(nresults 'hetlab_tenant_gpus_allocated' "$now")" -ge 1 ] && ok "per-tenant GPU allocation is scraped" ||
			bad "tenant gpus"
	else
		bad "prometheus scraping the live daemon" "up=$up count=$cnt tenants=$ten; $(tail -3 "$TMP/live.log")"
	fi
else
	bad "prometheus for the live daemon" "$(tail -5 "$TMP/live.log")"
fi

echo "prom: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
