# Sourced by tests/live/run.sh (its helpers, in $T): why a job waits under
# a policy other than easy (docs/forecast.md "Why a job waits", issue 32
# item 2).
#
# 25. One node of 2 cores under tiered; tenant lab has a core-hour quota
#     of 0.05 (180 core-seconds) a day. lab's first job (2 cores, a 60 s
#     limit: 120 core-seconds) runs; its second (1 core, 120 s) would pass
#     the quota and is held; ops's job (2 cores) is the offline head. The
#     forecast and hetlab why name the quota, the tenant and the use
#     against it (from the policy, which holds the job), and the head's
#     reservation; the replay makes the same decisions.

cat >scn-why.json <<'EOJ'
{ "name": "live-why", "seed": 1, "policy": "tiered",
  "org": { "tenants": [ { "name": "lab", "shares": 1, "quota": { "core_hours": 0.05, "window_days": 1 } },
                        { "name": "ops", "shares": 1 } ] },
  "node_types": [ { "name": "cpu2", "cpu": "Xeon-6348", "sockets": 1, "cores": 2, "mem_gib": 8 } ],
  "racks": [ { "name": "r1", "power_kw": 15, "nodes": [ { "type": "cpu2", "count": 1, "names": ["w1"] } ] } ] }
EOJ
printf '{ "scenario": "scn-why.json", "executor": "local", "state_dir": "st-why", "tick_s": 0.05, "probes": "none", "metrics": {"port": 0} }\n' >why.json
whyjob() { # TENANT CORES LIMIT_S SECONDS
	printf '{"class": "batch", "tenant": %s, "walltime_us": %s000000, "req": {"nodes": 1, "cores": %s}, "argv": ["sleep", "%s"]}\n' \
		"$1" "$3" "$2" "$4"
}
{ whyjob 0 2 60 20; whyjob 0 1 120 0.2; whyjob 1 2 60 0.2; } >jobs-why.jsonl
"$HETLAB" submit --config why.json jobs-why.jsonl >/dev/null
timeout 90 "$HETLAB" live --config why.json --max-s 60 2>log-why &
DAEMON=$!
# The first forecast with both waiting jobs (1 held, 2 pending).
fc=
for i in $(seq 1 100); do
	fc=$("$HETLAB" forecast --config why.json --json 2>/dev/null)
	case $fc in *'"id":1'*'"id":2'*) break ;; esac
	sleep 0.1
done
whyget() { # JOB: the forecast's reason of a job
	printf '%s' "$fc" | python3 -c "import sys, json
f = json.load(sys.stdin); print([r for r in f['jobs'] if r['id'] == $1][0]['why'])"
}
check_eq "why: the held job names the quota, its tenant and the use against it (from tiered)" \
	"$(whyget 1)" "still held for the core-hour quota of tenant lab: 0.0333 of its 0.05 core-hours in 1 days used, running and waiting; it needs 0.0333 more (hetlab approve releases it)"
check_eq "why: the offline head names what it lacks and its reservation" \
	"$(whyget 2 | sed 's/reserved from t=[0-9]* s/reserved from t=T s/')" \
	"batch, first by priority; 2 cores: no node with 2 free cores (0 of 1 suitable node have room; most free: 0 on w1); reserved from t=T s"
out=$("$HETLAB" why --config why.json 1 2>&1)
check_eq "why: hetlab why names the quota hold and gives the forecast" \
	"$(printf '%s\n' "$out" | grep -c -e '^job 1 waits: still held for the core-hour quota of tenant lab: .*(hetlab approve releases it)$' -e '^predicted start ')" 2
"$HETLAB" approve --config why.json lab >/dev/null 2>&1
for i in $(seq 1 200); do
	[ "$(q st-why/state.db "SELECT count(*) FROM jobs WHERE state = 'done'" 2>/dev/null)" = 3 ] 2>/dev/null && break
	sleep 0.1
done
kill "$DAEMON" 2>/dev/null
wait "$DAEMON"
DAEMON=
check_eq "why: every job done once lab is approved" "$(q st-why/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" 3
replay_same why why
