#!/bin/sh
# Live-mode tests: `hetlab live` with the local executor against real
# processes on this host — jobs run where the policy put them, exit codes,
# preemption (signal, exit, requeue, restart), cancel, walltime kill, probe
# readings that drain a hot node, quota holds released by `hetlab approve`, kill -9 of the daemon and its recovery
# (no job lost or started twice), the metrics endpoint, bad input, the
# socket shared fairly between users (fair.sh), forecasts and reasons
# (forecast.sh, why.sh), and the
# replay of every recording (same decisions at the same times).
#
# usage: tests/live/run.sh HETLAB
set -u
HETLAB=$1
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-live-XXXXXX")
DAEMON=
U=
grp=
cleanup() {
	[ -n "$DAEMON" ] && kill -9 "$DAEMON" 2>/dev/null
	pkill -9 -f "$T/" 2>/dev/null
	rm -rf "$T"
	[ -n "$U" ] && rm -rf "$U"
	[ -n "$grp" ] && groupdel "$grp" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   live: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL live: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
q() { sqlite3 -batch -noheader "$1" "$2"; }
command -v sqlite3 >/dev/null || { echo "live tests need the sqlite3 program"; exit 1; }

# A two-node CPU cluster (2 cores each) named h1, h2; tiered policy;
# training checkpoints on SIGUSR1 within a 2 s grace.
cat >"$T/scn.json" <<'EOF'
{
  "name": "live-test",
  "seed": 1,
  "policy": "tiered",
  "node_types": [ { "name": "cpu2", "cpu": "Xeon-6348", "sockets": 1, "cores": 2, "mem_gib": 8 } ],
  "racks": [ { "name": "r1", "power_kw": 15, "nodes": [ { "type": "cpu2", "count": 2, "names": ["h1", "h2"] } ] } ],
  "checkpoint": { "training": { "grace_s": 2 } },
  "policy_params": { "preempt_exempt_s": 0 }
}
EOF
# cfg NAME [extra keys]: a config with its own state directory.
cfg() {
	printf '{ "scenario": "scn.json", "executor": "local", "state_dir": "%s", "tick_s": 0.05, "probe_every_s": 0.2%s }\n' \
		"st-$1" "${2:-}" >"$T/$1.json"
}
# job CLASS CORES SECONDS [extra keys]: a job line that logs its start and sleeps.
job() {
	printf '{"class": "%s", "req": {"nodes": 1, "cores": %s}, "argv": ["sh", "-c", "echo $HETLAB_JOB_ID $HETLAB_ATTEMPT $HETLAB_NODES >> %s/starts-$HETLAB_STATE; sleep %s"], "env": {"HETLAB_STATE": "%s"}%s}\n' \
		"$1" "$2" "$T" "$4" "$3" "${5:-}"
}
# fetch PATH: GET http://127.0.0.1:$port PATH; the status line, then the body.
fetch() { python3 -c "import sys,urllib.request
try:
    r = urllib.request.urlopen('http://127.0.0.1:$port$1', timeout=5); print(r.status); sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e: print(e.code); sys.stdout.write(e.read().decode())" 2>&1; }
port_of() { sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$1" 2>/dev/null; }
replay_same() { # name state
	if out=$("$HETLAB" replay "$T/st-$2" 2>&1); then ok "$1: replay makes the same decisions"
	else bad "$1: replay makes the same decisions" "$(printf '%s' "$out" | tail -n 8)"; fi
}

cd "$T" || exit 1

# --- 1. five jobs on two nodes: two at a time, each once, all done ---------
cfg basic ', "probes": "none"'
for i in 1 2 3 4 5; do job batch 2 basic 0.5; done >jobs-basic.jsonl
"$HETLAB" submit --config basic.json jobs-basic.jsonl >/dev/null
timeout 60 "$HETLAB" live --config basic.json --exit-when-idle -q 2>log-basic
check_eq "basic: daemon exits when idle" $? 0
check_eq "basic: every job done" "$(q st-basic/state.db "SELECT group_concat(state) FROM jobs")" "done,done,done,done,done"
check_eq "basic: every job started once" "$(cut -d' ' -f1 starts-basic | sort -n | tr '\n' ' ')" "0 1 2 3 4 "
check_eq "basic: never more than two at a time (starts at three times)" \
	"$(q st-basic/state.db "SELECT count(DISTINCT start_us / 200000) >= 3 FROM jobs")" 1
check_eq "basic: HETLAB_NODES is the node the policy chose" \
	"$(q st-basic/state.db "SELECT nodes FROM jobs WHERE id = 0" ; awk '$1 == 0 {print $3}' starts-basic)" "
h1"
replay_same basic basic
"$HETLAB" report st-basic/results.db >report-basic.txt 2>&1
check_eq "basic: results.db is a run hetlab report reads" "$(grep -c 'jobs          5: done 5' report-basic.txt)" 1

# The state is bound to its scenario's policy and its executor: a daemon
# started on it with others refuses, saying why.
out=$(timeout 20 "$HETLAB" live --config basic.json --policy easy --exit-when-idle -q 2>&1)
check_eq "basic: another policy on the state is refused" \
	"$?,$(printf '%s' "$out" | grep -c "this state was made with its scenario's policy (\$.policy), not 'easy'; start a new state_dir")" "1,1"
out=$(timeout 20 "$HETLAB" live --config basic.json --executor slurm --exit-when-idle -q 2>&1)
check_eq "basic: another executor on the state is refused" \
	"$?,$(printf '%s' "$out" | grep -c "this state was made with executor 'local', not 'slurm'; start a new state_dir")" "1,1"

# The state's results keyed by LIVE.json's audit_key (they were always
# unkeyed): results.db verifies with the key; a key others may read stops
# the daemon at its start, naming the key.
(umask 077; head -c 32 /dev/urandom > audit.key)
cfg keyed ', "probes": "none", "audit_key": "audit.key"'
job batch 1 keyed 0.1 > jobs-keyed.jsonl
"$HETLAB" submit --config keyed.json jobs-keyed.jsonl >/dev/null
timeout 60 "$HETLAB" live --config keyed.json --exit-when-idle -q 2>log-keyed
out=$("$HETLAB" audit verify --key audit.key st-keyed/results.db 2>&1)
check_eq "keyed: results.db's audit head is authenticated by the config's audit_key" \
	"$?,$(printf '%s' "$out" | grep -c 'head authenticated by hmac-sha256:.*: checked')" "0,1"
chmod 644 audit.key
out=$(timeout 20 "$HETLAB" live --config keyed.json --exit-when-idle -q 2>&1)
check_eq "keyed: a key others may read stops the daemon at its start" \
	"$?,$(printf '%s' "$out" | grep -c 'keyed.json: \$.audit_key: .*audit.key: a secret key that others may read (mode 0644)')" "1,1"

# A FIFO where state.db should be: refused at once (SQLite's open waited
# for a writer for ever).
mkdir st-fifodb && mkfifo st-fifodb/state.db
out=$(timeout 10 "$HETLAB" queue --state st-fifodb 2>&1)
check_eq "fifo: hetlab queue on a FIFO state.db is refused at once, saying so" \
	"$?,$(printf '%s' "$out" | grep -c 'st-fifodb/state.db: not a regular file (a FIFO)')" "1,1"

# A state with no jobs at all: --exit-when-idle waits 10 s for a first
# submission, then exits, saying so.
cfg nojobs ', "probes": "none"'
timeout 30 "$HETLAB" live --config nojobs.json --exit-when-idle 2>log-nojobs
check_eq "nojobs: --exit-when-idle exits on a state with no jobs, saying why" \
	"$?,$(grep -c -- '--exit-when-idle: no job submitted within 10 s of the start: nothing to do' log-nojobs)" "0,1"

# The log's engine time never goes back, across a restart too (the lines
# before the engine caught up showed 0).
cfg lt ', "probes": "none"'
job batch 1 lt 1 | "$HETLAB" submit --config lt.json - >/dev/null
timeout 60 "$HETLAB" live --config lt.json --exit-when-idle 2>log-lt1
job batch 1 lt 0.2 | "$HETLAB" submit --config lt.json - >/dev/null
timeout 60 "$HETLAB" live --config lt.json --exit-when-idle 2>log-lt2
check_eq "restart: the log's engine time never goes back ($(grep -c . log-lt2) lines after the restart)" \
	"$(cat log-lt1 log-lt2 | sed -n 's/^hetlab live: [^ ]* [a-z]* \[\([0-9.]*\) s\].*/\1/p' |
	   awk 'NR > 1 && $1 < last {print "line " NR ": " $1 " after " last} {last = $1}')" ""

# --- 2. exit codes, affinity and environment --------------------------------
cfg codes ', "probes": "none"'
{
	printf '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["sh", "-c", "exit 3"]}\n'
	printf '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["/nonexistent/program"]}\n'
	printf '{"class": "batch", "req": {"nodes": 1, "cores": 2}, "argv": ["sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo id=$HETLAB_JOB_ID cuda=${CUDA_VISIBLE_DEVICES-unset}"]}\n'
} >jobs-codes.jsonl
"$HETLAB" submit --state st-codes jobs-codes.jsonl >/dev/null 2>&1 ||
	"$HETLAB" submit --config codes.json jobs-codes.jsonl >/dev/null
timeout 60 "$HETLAB" live --config codes.json --exit-when-idle -q 2>log-codes
check_eq "codes: exit 3 and exec failure are failed (exit)" \
	"$(q st-codes/state.db "SELECT group_concat(state || ':' || reason) FROM jobs WHERE id < 2")" "failed:exit,failed:exit"
check_eq "codes: a program that cannot run says so in its output" \
	"$(grep -c . st-codes/jobs/1.out | awk '{print ($1 > 0)}')" 1
ncpu=$(getconf _NPROCESSORS_ONLN)
want=$( [ "$ncpu" -ge 2 ] && echo "0-1" || echo "0")
check_eq "codes: pinned to the cores it was given" "$(awk '/Cpus_allowed_list/ {print $2}' st-codes/jobs/2.out)" "$want"
check_eq "codes: job id in the environment, no GPU on a CPU node" "$(grep -o 'id=.*' st-codes/jobs/2.out)" "id=2 cuda=unset"
replay_same codes codes

# --- 3. preemption: inference takes the cluster from training ---------------
# Two training jobs fill both nodes; inference arrives; tiered preempts one:
# it gets SIGUSR1, writes a checkpoint marker and exits; it is requeued and
# runs again (attempt 1) once the inference job is done.
cfg pre ', "probes": "none"'
ckjob='{"class": "training", "req": {"nodes": 1, "cores": 2}, "argv": ["sh", "-c", "trap '"'"'echo ckpt $HETLAB_ATTEMPT >> %s/ckpt; exit 0'"'"' USR1; echo $HETLAB_JOB_ID $HETLAB_ATTEMPT >> %s/starts-pre; [ $HETLAB_ATTEMPT = 0 ] && n=60 || n=5; i=0; while [ $i -lt $n ]; do sleep 0.1; i=$((i+1)); done"]}\n'
{ printf "$ckjob" "$T" "$T"; printf "$ckjob" "$T" "$T"; } >jobs-pre.jsonl
"$HETLAB" submit --config pre.json jobs-pre.jsonl >/dev/null
timeout 60 "$HETLAB" live --config pre.json --exit-when-idle -q 2>log-pre &
DAEMON=$!
sleep 1.5
job inference 2 pre 0.5 | "$HETLAB" submit --config pre.json - >/dev/null
wait "$DAEMON"
check_eq "preempt: daemon ends" $? 0
DAEMON=
check_eq "preempt: one preemption and one requeue logged" \
	"$(q st-pre/state.db "SELECT sum(kind = 'preempt') || ',' || sum(kind = 'requeue') FROM decision")" "1,1"
check_eq "preempt: the victim checkpointed on the signal" "$(cat ckpt 2>/dev/null)" "ckpt 0"
check_eq "preempt: all three done, the victim on its second attempt" \
	"$(q st-pre/state.db "SELECT group_concat(state || ':' || attempt) FROM jobs")" "$(printf 'done:%s,done:%s,done:0' \
	$(q st-pre/state.db "SELECT (id IN (SELECT job FROM decision WHERE kind = 'preempt')) FROM jobs WHERE id < 2"))"
check_eq "preempt: inference started within 3 s of its arrival" \
	"$(q st-pre/state.db "SELECT start_us - submit_us < 3000000 FROM jobs WHERE id = 2")" 1
replay_same preempt pre

# --- 4. cancel and walltime --------------------------------------------------
cfg kill ', "probes": "none"'
{ job batch 2 kill 30; job batch 2 kill 30 ', "walltime_us": 3000000'; job batch 2 kill 30; } >jobs-kill.jsonl
"$HETLAB" submit --config kill.json jobs-kill.jsonl >/dev/null
timeout 60 "$HETLAB" live --config kill.json --exit-when-idle -q 2>log-kill &
DAEMON=$!
sleep 1
"$HETLAB" cancel --state st-kill 0 2 >/dev/null
wait "$DAEMON"
DAEMON=
check_eq "kill: cancelled (running and pending) and walltime" \
	"$(q st-kill/state.db "SELECT group_concat(state || ':' || reason) FROM jobs")" "killed:cancelled,killed:walltime,killed:cancelled"
check_eq "kill: the pending job never started" "$(awk '$1 == 2' starts-kill | wc -l)" 0
sleep 0.3
check_eq "kill: no job process left behind" "$(pgrep -f "starts-kill" | wc -l)" 0
replay_same kill kill

# --- 5. probes: a hot node is drained, then resumed --------------------------
mkdir -p agent
printf '{"power_w": 300, "temp_c": 50}\n' >agent/h1.json
printf '{"power_w": 350, "temp_c": 95}\n' >agent/h2.json
cfg hot ', "probes": "file:agent/%n.json", "hot_c": 85, "cool_c": 70, "record_every_s": 0.5, "stale_s": 60, "metrics": {"port": 0}'
{ job batch 2 hot 4; job batch 2 hot 0.3; } >jobs-hot.jsonl
timeout 60 "$HETLAB" live --config hot.json --exit-when-idle 2>log-hot &
DAEMON=$!
sleep 1
"$HETLAB" submit --config hot.json jobs-hot.jsonl >/dev/null
sleep 1.5
port=$(port_of log-hot)
check_eq "hot: the metrics say h2 is hot and drained" \
	"$(fetch /metrics | grep -E '^hetlab_node_(hot|drained)\{node="h2"' | awk '{print $2}' | tr '\n' ' ')" "1 1 "
printf '{"power_w": 350, "temp_c": 60}\n' >agent/h2.json
printf '{"power_w": 999, "tempc": 60}\n' >agent/h1.json
sleep 1
printf '{"power_w": 300, "temp_c": 50}\n' >agent/h1.json
job batch 2 hot 0.3 | "$HETLAB" submit --config hot.json - >/dev/null
wait "$DAEMON"
DAEMON=
check_eq "hot: h2 drained as hot, then resumed" \
	"$(q st-hot/state.db "SELECT group_concat(kind || ':' || detail) FROM decision WHERE kind IN ('drain', 'resume')")" \
	"drain:hot: 95 C,resume:"
check_eq "hot: no job started on h2 while it was hot" \
	"$(q st-hot/state.db "SELECT count(*) FROM decision d WHERE kind = 'start' AND detail LIKE 'h2:%' AND t_us < (SELECT t_us FROM decision WHERE kind = 'resume')")" 0
check_eq "hot: a reading with an unknown key is refused, naming file and key" \
	"$(grep -c 'agent/h1.json: \$.tempc: unknown key' log-hot | awk '{print ($1 > 0)}')" 1
replay_same hot hot

# --- 6. kill -9 and recovery: nothing lost, nothing started twice -----------
cfg crash ', "probes": "none"'
for i in 1 2 3 4 5 6 7 8; do job batch 2 crash 1; done >jobs-crash.jsonl
"$HETLAB" submit --config crash.json jobs-crash.jsonl >/dev/null
"$HETLAB" live --config crash.json -q 2>log-crash1 &
DAEMON=$!
sleep 1.6
out=$("$HETLAB" live --config crash.json -q 2>&1)
check_eq "crash: a second daemon on the same state is refused" "$(printf '%s' "$out" | grep -c 'another hetlab live (pid [0-9]*) runs on this state')" 1
kill -9 "$DAEMON"
wait "$DAEMON" 2>/dev/null
running=$(q st-crash/state.db "SELECT count(*) FROM jobs WHERE state = 'running'")
check_eq "crash: jobs were running when the daemon was killed" "$([ "$running" -ge 1 ] && echo yes)" yes
# Two more jobs while it is down: they wait in the inbox.
{ job batch 2 crash 0.5; job batch 2 crash 0.5; } | "$HETLAB" submit --state st-crash - >/dev/null
"$HETLAB" live --config crash.json -q 2>log-crash2 &
DAEMON=$!
sleep 1.2
kill -9 "$DAEMON"
wait "$DAEMON" 2>/dev/null
timeout 60 "$HETLAB" live --config crash.json --exit-when-idle -q 2>log-crash3
check_eq "crash: the restarted daemon finishes" $? 0
DAEMON=
check_eq "crash: all ten jobs done" "$(q st-crash/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" 10
check_eq "crash: each job started exactly once" "$(cut -d' ' -f1 starts-crash | sort -n | uniq -c | awk '$1 != 1' | wc -l),$(cut -d' ' -f1 starts-crash | sort -u | wc -l)" "0,10"
replay_same crash crash

# --- 7. metrics endpoint ----------------------------------------------------
cfg met ', "probes": "none", "metrics": {"port": 0}'
job batch 2 met 3 | "$HETLAB" submit --config met.json - >/dev/null
"$HETLAB" live --config met.json --max-s 4 2>log-met &
DAEMON=$!
port=
for i in $(seq 1 50); do
	port=$(port_of log-met)
	[ -n "$port" ] && break
	sleep 0.1
done
sleep 0.5
m=$(fetch /metrics)
check_eq "metrics: /metrics answers 200" "$(printf '%s\n' "$m" | head -n1)" 200
check_eq "metrics: the running job is counted" "$(printf '%s\n' "$m" | grep -c '^hetlab_jobs{class="batch",state="running"} 1$')" 1
check_eq "metrics: cores allocated" "$(printf '%s\n' "$m" | grep '^hetlab_cores_allocated ' | awk '{print $2}')" 2
check_eq "metrics: /healthz" "$(fetch /healthz | head -n1)" 200
wait "$DAEMON"
DAEMON=
cfg pub ', "probes": "none", "metrics": {"addr": "0.0.0.0", "port": 0}'
"$HETLAB" live --config pub.json --max-s 1 2>log-pub
check_eq "metrics: a public address needs allow_public" \
	"$(grep -c 'allow_public\|public' log-pub | awk '{print ($1 > 0)}')" 1

# --- 8. quota holds and an operator's approval ------------------------------
sed 's/"checkpoint"/"org": { "core_weight": 1, "tenants": [ { "name": "lab", "quota": { "core_hours": 0.001 } } ] },\n  "checkpoint"/' scn.json >scn-q.json
printf '{ "scenario": "scn-q.json", "executor": "local", "state_dir": "st-q", "tick_s": 0.05, "probes": "none" }\n' >q.json
job batch 2 q 0.3 ', "tenant": 0' | "$HETLAB" submit --config q.json - >/dev/null
timeout 60 "$HETLAB" live --config q.json --exit-when-idle -q 2>log-q &
DAEMON=$!
sleep 1
check_eq "approve: the job over its tenant's quota is held" "$(q st-q/state.db "SELECT state FROM jobs")" held
out=$("$HETLAB" approve --state st-q nobody 2>&1)
check_eq "approve: an unknown tenant is refused" "$(printf '%s' "$out" | grep -c "no tenant 'nobody'")" 1
"$HETLAB" approve --state st-q lab >/dev/null
wait "$DAEMON"
DAEMON=
check_eq "approve: released by the operator, then done" \
	"$(q st-q/state.db "SELECT group_concat(kind || ':' || detail) FROM decision WHERE kind IN ('hold', 'release')"),$(q st-q/state.db "SELECT state FROM jobs")" \
	"hold:quota,release:approved by an operator,done"
replay_same approve q

# --- 9. this host's GPUs through NVML: an XID drains the node --------------
# A fake libnvidia-ml.so.1 (tests/data/fake_nvml.c) stands in for the
# driver: the daemon's host probe opens an NVML session on it, reads the
# XID 79 it queues for GPU 0, and the health monitor drains g1. A GPU job
# submitted then runs on g2 with CUDA_VISIBLE_DEVICES naming its card.
if cc -shared -fPIC -o fake-nvml.so "$ROOT/tests/data/fake_nvml.c" 2>cc.err; then
	cat >scn-gpu.json <<'EOF'
{ "name": "live-gpu", "seed": 1, "policy": "tiered",
  "node_types": [ { "name": "g", "gpu": "H100-SXM-80GB", "gpus": 2, "cpu": "Xeon-8480+", "sockets": 1, "cores": 4, "mem_gib": 16 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "cooling": "liquid", "nodes": [ { "type": "g", "count": 2, "names": ["g1", "g2"] } ] } ] }
EOF
	printf '{ "scenario": "scn-gpu.json", "state_dir": "st-gpu", "tick_s": 0.05, "probe_every_s": 0.2, "probes": { "g1": "host", "g2": "none" } }\n' >gpu.json
	HETLAB_NVML_LIB=$T/fake-nvml.so FAKE_NVML_EVENTS=0:8:79 timeout 60 "$HETLAB" live --config gpu.json --exit-when-idle 2>log-gpu &
	DAEMON=$!
	for i in $(seq 1 50); do grep -q 'drain node g1' log-gpu 2>/dev/null && break; sleep 0.1; done
	printf '{"class": "batch", "req": {"nodes": 1, "cores": 1, "gpus": 1}, "argv": ["sh", "-c", "echo cuda=$CUDA_VISIBLE_DEVICES order=$CUDA_DEVICE_ORDER"]}\n' |
		"$HETLAB" submit --config gpu.json - >/dev/null
	wait "$DAEMON"
	DAEMON=
	check_eq "gpu: an XID from NVML drains the node" \
		"$(q st-gpu/state.db "SELECT group_concat(kind || ' ' || detail) FROM decision WHERE kind = 'drain'")" "drain GPU 0 fell off the bus"
	check_eq "gpu: the GPU job is done" "$(q st-gpu/state.db "SELECT state FROM jobs")" "done"
	check_eq "gpu: placed on g2, not on the drained g1" "$(q st-gpu/state.db "SELECT detail FROM decision WHERE kind = 'start'")" "g2:1c:gpus=0x1"
	check_eq "gpu: CUDA_VISIBLE_DEVICES names its card, in PCI order" "$(cat st-gpu/jobs/0.out)" "cuda=0 order=PCI_BUS_ID"
	replay_same gpu gpu
	# MIG: both cards of the model are partitioned 3g.20gb + 1g.5gb; of the
	# fake's GPUs only GPU 1 is in MIG mode (3g.20gb at memory slices 0-3).
	# The 3g job on card 1 gets that MIG device's UUID; the one on card 0,
	# whose real GPU is not in MIG mode, the card with a warning.
	cat >scn-mig.json <<'EOF'
{ "name": "live-mig", "seed": 1, "policy": "fcfs",
  "node_types": [ { "name": "m", "gpu": "A100-PCIE-40GB", "gpus": 2, "cpu": "Xeon-8480+", "sockets": 1, "cores": 4, "mem_gib": 16,
                    "mig": { "cards": 2, "layout": ["3g.20gb", "1g.5gb"] } } ],
  "racks": [ { "name": "r1", "power_kw": 20, "nodes": [ { "type": "m", "count": 1, "names": ["m1"] } ] } ] }
EOF
	printf '{ "scenario": "scn-mig.json", "state_dir": "st-mig", "tick_s": 0.05, "probe_every_s": 0.2, "probes": "host" }\n' >mig.json
	for i in 1 2; do
		printf '{"class": "inference", "req": {"nodes": 1, "cores": 1, "gpus": 1, "mig": "3g"}, "argv": ["sh", "-c", "echo cuda=$CUDA_VISIBLE_DEVICES mig=$HETLAB_MIG; sleep 1"]}\n'
	done >jobs-mig.jsonl
	"$HETLAB" submit --config mig.json jobs-mig.jsonl >/dev/null
	HETLAB_NVML_LIB=$T/fake-nvml.so timeout 60 "$HETLAB" live --config mig.json --exit-when-idle -q 2>log-mig
	check_eq "mig: the instance on a MIG GPU gets its MIG device's UUID" \
		"$(grep -h '^cuda=MIG' st-mig/jobs/*.out)" "cuda=MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a03 mig=1:3g.20gb:0"
	check_eq "mig: on a GPU not in MIG mode, the card and a warning" \
		"$(grep -h '^cuda=0\|MIG is off' st-mig/jobs/*.out | sed 's/^hetlab: warning: .*(MIG is off on it).*/warned/' | sort | tr '\n' ' ')" "cuda=0 mig=0:3g.20gb:0 warned "
else
	bad "gpu: building the fake NVML library" "$(cat cc.err)"
fi

# --- 10. the Slurm executor when Slurm cannot be read: /healthz says so ------
# Fake Slurm commands: sbatch and scontrol work, squeue and sinfo fail as
# they do when slurmctld is unreachable.
mkdir -p fakeslurm
printf '#!/bin/sh\necho 42\n' >fakeslurm/sbatch
# scontrol show config: a site that schedules memory (CR_Core_Memory).
printf '#!/bin/sh\n[ "$1 $2" = "show config" ] && echo "SelectTypeParameters    = CR_Core_Memory"\nexit 0\n' >fakeslurm/scontrol
printf '#!/bin/sh\nexit 0\n' >fakeslurm/scancel
for c in squeue sinfo; do
	printf '#!/bin/sh\necho "%s: error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n' $c >fakeslurm/$c
done
chmod +x fakeslurm/*
printf '{ "scenario": "scn.json", "executor": "slurm", "state_dir": "st-sl", "tick_s": 0.05, "probe_every_s": 0.2, "probes": "none", "slurm": { "bindir": "%s/fakeslurm" }, "metrics": { "port": 0 } }\n' "$T" >sl.json
job batch 2 sl 1 | "$HETLAB" submit --config sl.json - >/dev/null
"$HETLAB" live --config sl.json --max-s 3 2>log-sl &
DAEMON=$!
sleep 1.5
port=$(port_of log-sl)
h=$(fetch /healthz)
check_eq "slurm down: /healthz is 503 naming the executor and the command" "$(printf '%s' "$h" | tr '\n' ' ' | cut -c1-55)" "503 slurm executor: cannot read its nodes: sinfo --json"
check_eq "slurm down: nothing is started, nor submitted, while Slurm cannot be read" \
	"$(q st-sl/state.db "SELECT state || ' ' || coalesce(ref, '-') || ' ' || (SELECT count(*) FROM decision WHERE kind = 'start') FROM jobs")" "pending - 0"
check_eq "slurm down: the log says no job is started" "$(grep -c 'Slurm cannot be read: no job is started until it can' log-sl)" 1
check_eq "slurm down: the memory warning names the job's field req.mem_mib" \
	"$(grep -c 'set slurm.mem_mib_default or give each job req.mem_mib$' log-sl)" 1
check_eq "slurm down: the log names the failing command" "$(grep -c 'sinfo.*Unable to contact slurm controller' log-sl | awk '{print ($1 > 0)}')" 1
wait "$DAEMON"
DAEMON=
replay_same "slurm down" sl

# --- 11. bad input -----------------------------------------------------------
out=$("$HETLAB" submit --config basic.json --job '{"class": "batch", "req": {"nodes": 1, "cores": 1}}' 2>&1)
check_eq "bad: a job without argv is refused, naming \$.argv" "$(printf '%s' "$out" | grep -c '\$.argv')" 1
out=$("$HETLAB" submit --config basic.json --job '{"class": "batch", "req": {"nodes": 1, "cores": 64}, "argv": ["true"]}' 2>&1)
check_eq "bad: a job larger than every node is refused" "$(printf '%s' "$out" | grep -c 'could never run')" 1
printf '{ "scenario": "scn.json", "executor": "pbs" }\n' >bad.json
out=$("$HETLAB" live --config bad.json 2>&1)
check_eq "bad: an unknown executor names \$.executor" "$(printf '%s' "$out" | grep -c 'bad.json: \$.executor')" 1
out=$("$HETLAB" replay "$T/nowhere" 2>&1)
check_eq "bad: replay of a directory without state says so" "$(printf '%s' "$out" | grep -c 'no live state here')" 1

# --- 12. a FIFO and a 300 MiB file at the reading paths ----------------------
# Opening the FIFO used to block the daemon inside its write transaction
# (no start, every submit "database is locked"); the big file was read
# whole every round. Both are refused for their node, logged once, and
# jobs run and submissions go through meanwhile.
mkdir -p agent2
mkfifo agent2/h1.json
truncate -s 300M agent2/h2.json
cfg fifo ', "probes": "file:agent2/%n.json", "stale_s": 600'
job batch 2 fifo 2 | "$HETLAB" submit --config fifo.json - >/dev/null
timeout 60 "$HETLAB" live --config fifo.json --exit-when-idle 2>log-fifo &
DAEMON=$!
sleep 1
out=$(job batch 2 fifo 0.3 | timeout 10 "$HETLAB" submit --config fifo.json - 2>&1)
check_eq "fifo: a submission goes through while the probes are bad" "$(printf '%s' "$out" | grep -c '1 job queued')" 1
wait "$DAEMON"
check_eq "fifo: the daemon ends" $? 0
DAEMON=
check_eq "fifo: both jobs done" "$(q st-fifo/state.db "SELECT group_concat(state) FROM jobs")" "done,done"
check_eq "fifo: the FIFO is refused for its node, once" \
	"$(grep -c 'warn .*node h1: reading refused: .*agent2/h1.json: not a regular file (a FIFO)' log-fifo)" 1
check_eq "fifo: the 300 MiB file is refused by its size" \
	"$(grep -c 'node h2: reading refused: .*agent2/h2.json: 314572800 bytes: a reading is at most 65536 bytes' log-fifo)" 1
rm -rf agent2

# --- 13. the state is owned and private ----------------------------------------
# A daemon.lock planted as a link to a file the daemon's user owns: the
# daemon refuses the state and the file is untouched (the lock is opened
# without following links). A state writable by others, or under a
# world-writable parent without the sticky bit, is refused.
check_eq "private: the state directory is 0700, its files 0600" \
	"$(stat -c %a st-basic st-basic/jobs st-basic/state.db st-basic/daemon.lock st-basic/results.db st-basic/jobs/0.out | tr '\n' ' ')" \
	"700 700 600 600 600 600 "
mkdir -m 700 st-lnk
echo precious >victim
ln -s "$T/victim" st-lnk/daemon.lock
cfg lnk ', "probes": "none"'
out=$("$HETLAB" live --config lnk.json --max-s 1 2>&1)
check_eq "private: a daemon.lock link is refused, naming it" "$(printf '%s' "$out" | grep -c 'st-lnk/daemon.lock: a symbolic link: refused')" 1
check_eq "private: the file the link names is untouched" "$(cat victim)" precious
mkdir -m 777 st-ww
chmod 777 st-ww
cfg ww ', "probes": "none"'
out=$("$HETLAB" live --config ww.json --max-s 1 2>&1)
check_eq "private: a state writable by everyone is refused" "$(printf '%s' "$out" | grep -c 'st-ww: the state directory is writable by everyone')" 1
mkdir -m 777 shared
chmod 777 shared
printf '{ "scenario": "scn.json", "state_dir": "shared/st", "probes": "none" }\n' >shared.json
out=$("$HETLAB" live --config shared.json --max-s 1 2>&1)
check_eq "private: a state under a world-writable parent without the sticky bit is refused" \
	"$(printf '%s' "$out" | grep -c 'writable by everyone and has no sticky bit'),$(ls shared | wc -l)" "1,0"

# --- 14. a bad inbox row is quarantined, the jobs behind it run -------------
# Rows written into the inbox by hand (an older client, sqlite3): a job
# line cut short, a cancel whose job is text, one whose id wraps to job 1
# in 32 bits, an unknown request. Each is kept in table quarantine and
# reported by `hetlab queue`; the good jobs around them run; a restart
# does not exit (before, the cut line was recorded, the daemon exited and
# every restart replayed it and exited again).
cfg qbad ', "probes": "none"'
{ job batch 1 qbad 0.2; job batch 1 qbad 0.2; } >jobs-qbad.jsonl
"$HETLAB" submit --config qbad.json jobs-qbad.jsonl >/dev/null
q st-qbad/state.db "INSERT INTO inbox(kind, job, spec) VALUES ('submit', NULL, '{\"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1}, \"argv\": [\"tr'); INSERT INTO inbox(kind, job) VALUES ('cancel', 'abc'); INSERT INTO inbox(kind, job) VALUES ('cancel', 4294967297); INSERT INTO inbox(kind) VALUES ('resubmit');"
job batch 1 qbad 0.2 | "$HETLAB" submit --config qbad.json - >/dev/null
timeout 60 "$HETLAB" live --config qbad.json --exit-when-idle 2>log-qbad
check_eq "quarantine: the daemon keeps running and exits when idle" $? 0
check_eq "quarantine: the three good jobs ran, none cancelled" "$(q st-qbad/state.db "SELECT group_concat(state) FROM jobs")" "done,done,done"
check_eq "quarantine: four rows kept, naming their inbox rows" \
	"$(q st-qbad/state.db "SELECT group_concat(inbox_seq) FROM quarantine")" "3,4,5,6"
check_eq "quarantine: the cut line's message names its inbox row" \
	"$(grep -c 'inbox row 3 quarantined .*st-qbad/state.db inbox row:3:' log-qbad)" 1
out=$("$HETLAB" queue --state st-qbad 2>&1)
check_eq "quarantine: hetlab queue reports them" "$(printf '%s\n' "$out" | grep -c '^quarantined: inbox row [3-6] ')" 4
timeout 60 "$HETLAB" live --config qbad.json --exit-when-idle -q 2>log-qbad2
check_eq "quarantine: a restart does not exit (nothing bad was recorded)" "$?,$(q st-qbad/state.db "SELECT count(*) FROM inbox")" "0,0"
replay_same quarantine qbad

# --- 15. --exit-when-idle with submissions waiting for a full job table -----
# It used to exit 0 with the jobs still in the inbox: it now says why and
# exits 1 (results.db written), the jobs kept for a daemon with a bigger
# max_jobs. (Ended jobs kept: keep_ended 0; section 21 lets them go.)
cfg full ', "probes": "none", "max_jobs": 2, "keep_ended": 0'
for i in 1 2 3; do job batch 1 full 0.2; done >jobs-full.jsonl
"$HETLAB" submit --config full.json jobs-full.jsonl >/dev/null
timeout 60 "$HETLAB" live --config full.json --exit-when-idle 2>log-full
check_eq "full: exits 1 once the table is full and every job has ended" $? 1
check_eq "full: says why" "$(grep -c 'submissions wait in the inbox (from row 3): the job table is full (max_jobs 2)' log-full)" 1
check_eq "full: the waiting job is kept, results written" \
	"$(q st-full/state.db "SELECT count(*) FROM inbox"),$(q st-full/results.db "SELECT count(*) FROM job")" "1,2"
cfg full ', "probes": "none", "max_jobs": 3, "keep_ended": 0'
timeout 60 "$HETLAB" live --config full.json --exit-when-idle -q 2>/dev/null
check_eq "full: a daemon with room runs it" "$?,$(q st-full/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" "0,3"

# --- 16. typos, caps and names that would drive a terminal ----------------------
out=$("$HETLAB" submit --state st-tpyo --job '{"class": "batch", "req": {"nodes": 1, "cores": 9999}, "argv": ["true"]}' 2>&1)
check_eq "typo: --state naming no directory is an error, nothing made" \
	"$?,$(printf '%s' "$out" | grep -c 'st-tpyo: no such state directory'),$(ls -d st-tpyo 2>/dev/null | wc -l)" "1,1,0"
mkdir -m 700 st-empty
out=$("$HETLAB" submit --state st-empty --job '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["true"]}' 2>&1)
check_eq "typo: a directory without a state is an error" "$?,$(printf '%s' "$out" | grep -c 'no live state here')" "1,1"
out=$("$HETLAB" submit --state st-basic --job '{"class": "batch", "req": {"nodes": 1, "cores": 9999}, "argv": ["true"]}' 2>&1)
check_eq "typo: a 9,999-core job for the 2-core cluster is refused" "$?,$(printf '%s' "$out" | grep -c 'could never run')" "1,1"
out=$("$HETLAB" cancel --state st-basic 9223372036854775808 2>&1)
check_eq "cancel: 9223372036854775808 is refused, not saturated" "$?,$(printf '%s' "$out" | grep -c "expected job ids 0..2147483646")" "2,1"
python3 -c "import sys; sys.stdout.write('{\"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1}, \"argv\": [\"true\"], \"name\": \"' + 'x' * 100000 + '\"}\n')" >long.jsonl
out=$("$HETLAB" submit --state st-basic long.jsonl 2>&1)
check_eq "cap: a 100 kB job line is refused, naming the line" "$?,$(printf '%s' "$out" | grep -c 'long.jsonl:1: a job line of more than 65536 bytes')" "1,1"
python3 -c "import sys; sys.stdout.write('{\"name\": \"' + 'x' * (100 << 20) + '\"}\n')" | timeout 20 "$HETLAB" submit --state st-basic - >cap.out 2>&1
check_eq "cap: a 100 MiB job line from stdin is refused at once" "$?,$(grep -c 'stdin:1: a job line of more than 65536 bytes' cap.out)" "1,1"
cfg esc ', "probes": "none"'
printf '{"class": "batch", "name": "a\\nhetlab live: FORGED error\\u001b[2J\\u009b31m", "req": {"nodes": 1, "cores": 1}, "argv": ["true"]}\n' >jobs-esc.jsonl
"$HETLAB" submit --config esc.json jobs-esc.jsonl >/dev/null
timeout 60 "$HETLAB" live --config esc.json --exit-when-idle 2>log-esc
check_eq "escape: a job name forges no log line" "$(grep -c '^hetlab live: FORGED' log-esc),$(grep -c 'start job 0 (a\\nhetlab live: FORGED error\\x1b\[2J\\u009b31m)' log-esc)" "0,1"
check_eq "escape: no escape byte reaches the log" "$(tr -d -c '\033' <log-esc | wc -c)" 0
check_eq "escape: hetlab queue prints the name escaped" "$("$HETLAB" queue --state st-esc --all | tr -d -c '\033' | wc -c)" 0
check_eq "log: every line has the wall-clock time, a level and the engine time" \
	"$(grep -c -v -E '^hetlab live: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z (info|warn|error) \[[0-9]+\.[0-9]{3} s\] ' log-esc log-fifo log-qbad | grep -v ':0$' | wc -l)" 0

# --- 17. jobs of other users, identity from the kernel (root only) ------------
# The daemon (root) serves a socket in a directory everyone reaches;
# `nobody` submits through it: the job runs as nobody (a "submitter" it
# put in the line is ignored), without the daemon's environment, its
# output in its cwd, owned by nobody. nobody sees only its own jobs and
# may neither cancel root's nor approve; a member of the operators group
# may. Without a daemon, nobody cannot queue into root's state, and a
# daemon that is not root refuses another user's jobs, saying why.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	U=$(mktemp -d /tmp/hetlab-live-users-XXXXXX)
	chmod 755 "$U"
	mkdir "$U/pub" "$U/work"
	chown nobody "$U/work"
	cp "$HETLAB" "$U/hetlab"
	chmod 755 "$U/hetlab"
	grp=hetlabops$$
	groupadd "$grp" 2>/dev/null
	gid=$(getent group "$grp" | cut -d: -f3)
	as_nobody() { (cd "$U/work" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"); }
	as_op() { (cd "$U/work" && setpriv --reuid=nobody --regid="$(id -g nobody)" --groups="$gid" "$@"); }
	sock=$U/pub/hetlab.sock
	cfg users ", \"probes\": \"none\", \"socket\": \"$sock\", \"operators\": \"$grp\""
	HETLAB_DAEMON_SECRET=s3cret timeout 60 "$HETLAB" live --config users.json --exit-when-idle 2>log-users &
	DAEMON=$!
	for i in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
	job batch 1 users 4 | "$HETLAB" submit --config users.json - >/dev/null
	out=$(as_nobody "$U/hetlab" submit --socket "$sock" --job '{"class": "batch", "name": "theirs", "req": {"nodes": 1, "cores": 1}, "submitter": {"uid": 0, "gid": 0, "user": "root"}, "argv": ["sh", "-c", "id -u; pwd; echo user=$USER secret=${HETLAB_DAEMON_SECRET-unset}"]}' 2>&1)
	check_eq "users: nobody submits through the socket" "$(printf '%s' "$out" | grep -c '1 job queued')" 1
	for i in $(seq 1 50); do [ -s "$U/work/hetlab-1.out" ] && break; sleep 0.1; done
	sleep 0.3
	check_eq "users: the job ran as nobody in its cwd, without the daemon's environment" \
		"$(tr '\n' ' ' <"$U/work/hetlab-1.out" 2>/dev/null)" "$(id -u nobody) $U/work user=nobody secret=unset "
	check_eq "users: its output belongs to nobody, mode 0600" "$(stat -c '%U %a' "$U/work/hetlab-1.out" 2>/dev/null)" "nobody 600"
	check_eq "users: the recording says who submitted it (the line's own claim dropped)" \
		"$(q st-users/state.db "SELECT json_extract(data, '\$.submitter.user') || ' ' || json_extract(data, '\$.submitter.uid') FROM rec WHERE kind = 'submit' AND job = 1")" "nobody $(id -u nobody)"
	out=$(as_nobody "$U/hetlab" queue --socket "$sock" --all 2>&1)
	check_eq "users: nobody's queue shows only nobody's job" "$(printf '%s\n' "$out" | awk '/^ *[0-9]+  / {print $2 ":" $3}')" "theirs:nobody"
	check_eq "users: the daemon's user sees both, with their users" \
		"$("$HETLAB" queue --config users.json --all | awk '/^ *[0-9]+  / {print $3}' | tr '\n' ' ')" "root nobody "
	out=$(as_nobody "$U/hetlab" cancel --socket "$sock" 0 2>&1)
	check_eq "users: nobody may not cancel root's job" "$?,$(printf '%s' "$out" | grep -c 'job 0 is not yours')" "1,1"
	out=$(as_nobody "$U/hetlab" approve --socket "$sock" 0 2>&1)
	check_eq "users: nobody may not approve" "$?,$(printf '%s' "$out" | grep -c 'only an operator may approve')" "1,1"
	out=$(as_op "$U/hetlab" cancel --socket "$sock" 0 2>&1)
	check_eq "users: a member of the operators group may cancel it" "$?,$(printf '%s' "$out" | grep -c '1 cancellation queued')" "0,1"
	wait "$DAEMON"
	DAEMON=
	check_eq "users: root's job cancelled by the operator, nobody's done" \
		"$(q st-users/state.db "SELECT group_concat(state || ':' || coalesce(reason, '')) FROM jobs")" "killed:cancelled,done:"
	out=$(as_nobody "$U/hetlab" submit --socket "$sock" --state "$T/st-users" --job '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["true"]}' 2>&1)
	check_eq "users: without a daemon nobody cannot queue into root's state, told why" \
		"$?,$(printf '%s' "$out" | grep -c "$sock: no daemon answers on this socket")" "1,1"
	# A daemon that is not root: its own state, run as nobody.
	mkdir "$U/nb"
	cp scn.json "$U/scn.json"
	printf '{ "scenario": "%s/scn.json", "state_dir": "%s/nb/st", "tick_s": 0.05, "probes": "none" }\n' "$U" "$U" >"$U/nb.json"
	chown -R nobody "$U/nb"
	as_nobody timeout 30 "$U/hetlab" live --config "$U/nb.json" --max-s 2 2>log-nb &
	DAEMON=$!
	for i in $(seq 1 50); do [ -S "$U/nb/st/hetlab.sock" ] && break; sleep 0.1; done
	out=$("$HETLAB" submit --socket "$U/nb/st/hetlab.sock" --job '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["true"]}' 2>&1)
	check_eq "users: a daemon that is not root refuses another user's job, saying why" \
		"$?,$(printf '%s' "$out" | grep -c 'this daemon runs as nobody .*, not as root: it can run jobs only as that user')" "1,1"
	out=$(as_nobody "$U/hetlab" submit --config "$U/nb.json" --job '{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["true"]}' 2>&1)
	check_eq "users: ... and takes its own user's" "$(printf '%s' "$out" | grep -c '1 job queued')" 1
	wait "$DAEMON"
	DAEMON=
	groupdel "$grp" 2>/dev/null
	rm -rf "$U"
	U=
	grp=
else
	echo "skip live: users (needs root, setpriv and the user nobody)"
fi

# --- 18 to 20. the socket shared fairly (tests/live/fair.sh) ------------------
. "$ROOT/tests/live/fair.sh"

# --- 21. ended jobs leave the engine's tables (tests/live/compact.sh) ---------
. "$ROOT/tests/live/compact.sh"

# --- 22. snapshots: a restart replays only what follows (tests/live/snapshot.sh)
. "$ROOT/tests/live/snapshot.sh"

# --- 23. forecasts and reasons (tests/live/forecast.sh) -----------------------
. "$ROOT/tests/live/forecast.sh"

# --- 24. kept snapshots, state-prune and its archives (tests/live/prune.sh) --
. "$ROOT/tests/live/prune.sh"

# --- 25. why a job waits under tiered: a quota hold (tests/live/why.sh) -----
. "$ROOT/tests/live/why.sh"

echo
echo "live: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
