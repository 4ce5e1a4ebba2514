#!/bin/sh
# The soak of `hetlab live --executor slurm`: a few hundred mixed short
# jobs on the real local cluster (tests/slurm/local-slurm.sh: n1..n6,
# partitions debug = n1-n4 and second = n5-n6, both driven by one daemon;
# slurmdbd + MariaDB; CR_Core_Memory), while the daemon is killed with -9
# again and again and slurmctld is restarted under it.
#
#   sh tests/slurm/soak.sh build/hetlab
#   HETLAB_SLURM_EXPORT=minimal sh tests/slurm/soak.sh build/hetlab
#                          (the daemon with slurm.export "minimal")
#
# The workload (four waves, tests/slurm/soak-jobs.awk writes them): batch
# and dev jobs of tenants t0 and t1, single-node and gang (2-4 node)
# training jobs on both GPUs of their nodes, inference jobs that preempt
# the training jobs under the tiered policy (victim order: training only;
# a victim checkpoints on the signal in a moment and runs again), and jobs
# of tenant t2, over its quota: held until `hetlab approve t2`. Every job
# runs 1-5 s and logs each run, checkpoint and end to out/NAME.
#
# The disruptions: the daemon killed with -9 seven times (right after a
# wave's submissions reached Slurm, right after its flush logged them,
# twice right after a preemption, while many jobs run, once at a random
# moment, and once with starts decided while slurmctld is down), each
# time restarted (at once or after a few seconds, so that jobs start, end
# and checkpoint while it is down), and slurmctld restarted twice while
# jobs run.
#
# At the end (the checks):
#   - every hetlab job is final, and done;
#   - per hetlab job, sacct -D over every Slurm job of its name or in its
#     xref rows shows exactly one COMPLETED run; any other run that ran is
#     REQUEUED (a preemption or Slurm's requeue), any other record never
#     ran; no Slurm job of this state belongs to no hetlab job, none is
#     left in the queue; each job's own log ends with its end;
#   - results.db and sacct agree within 1 % of core-seconds and
#     GPU-seconds (trust.sh's method), and hetlab report's GPU-seconds too;
#   - the quota-held jobs started only after the approval;
#   - `hetlab replay` makes the same decisions.
# Never skips: a cluster that does not start is a failure. KEEP=1 keeps the
# directory; LOCAL_SLURM_DIR=DIR uses a running cluster. Prints "slurm
# soak: N passed, N failed (S s)".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
t0=$(date +%s)
die() { echo "FAIL slurm soak: $*"; exit 1; }
[ -x "$HETLAB" ] || die "$HETLAB not found"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue scontrol sinfo scancel sacct sqlite3 python3; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server sqlite3 python3)"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-soak-XXXXXX") || die "mktemp failed"
C=${LOCAL_SLURM_DIR:-$D/cluster}
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${LOCAL_SLURM_DIR:-}" ] || sh "$HERE/local-slurm.sh" stop "$C" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
logs() {
	# What Slurm and the daemon say of the nodes and of every job not done.
	echo "  --- sinfo -N; squeue; hetlab queue"
	{ sinfo -N -h -o '%N %T %E' 2>&1; squeue -h -o '%i %j %T %R' 2>&1; [ -f "$D/st/state.db" ] && "$HETLAB" queue --state "$D/st" 2>&1; } |
		head -n 40 | sed 's/^/  | /'
	for f in "$C"/log/slurmctld.log "$D"/daemon.log; do
		[ -f "$f" ] || continue
		echo "  --- ${f##*/}"
		tail -n 30 "$f" | sed 's/^/  | /'
	done
}
if [ -z "${LOCAL_SLURM_DIR:-}" ] && ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	logs
	die "the cluster did not start"
fi
. "$C/env"
export SLURM_CONF
NAME="slurm soak"
. "$HERE/testlib.sh"
q() { sqlite3 -batch -noheader "$D/st/state.db" "$1" 2>/dev/null; }
cd "$D" || exit 1
mkdir -p out

cat >scn.json <<'EOF'
{
  "name": "soak", "seed": 1, "policy": "tiered",
  "policy_params": { "preempt_exempt_s": 0 },
  "node_types": [ { "name": "gpu2", "gpu": "L40S-48GB", "gpus": 2, "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "nodes": [ { "type": "gpu2", "count": 4, "names": ["n1", "n2", "n3", "n4"] } ] },
             { "name": "r2", "power_kw": 40, "nodes": [ { "type": "gpu2", "count": 2, "names": ["n5", "n6"] } ] } ],
  "org": { "tenants": [ { "name": "t0" }, { "name": "t1" }, { "name": "t2", "quota": { "core_hours": 0.02 } } ] },
  "tiered": { "victim_order": ["training"], "dev": { "max_runtime_s": 600 } },
  "checkpoint": { "training": { "grace_s": 20 } }
}
EOF
cat >live.json <<'EOF'
{ "scenario": "scn.json", "executor": "slurm", "state_dir": "st", "tick_s": 0.2, "probe_every_s": 1, "probes": "none",
  "results_every_s": 0,
  "slurm": { "partition": ["debug", "second"], "accounts": { "t0": "t0", "t1": "t1", "t2": "t2" },
             "gres_types": { "L40S-48GB": "fake" }, "start_timeout_s": 10 } }
EOF
if [ -n "${HETLAB_SLURM_EXPORT:-}" ]; then
	sed -i 's/"start_timeout_s": 10/&, "export": "'"$HETLAB_SLURM_EXPORT"'"/' live.json
fi

starts=0   # daemon starts so far ("executor, policy" lines in daemon.log)
start_daemon() {
	"$HETLAB" live --config live.json >>daemon.log 2>&1 &
	DPID=$!
	starts=$((starts + 1))
	T=30 until_ok sh -c "[ \"\$(grep -c 'executor, policy' daemon.log)\" -ge $starts ]" ||
		bad "daemon start $starts" "$(tail -n 5 daemon.log)"
}
kills=0
kill9() {   # WHY
	kill -9 "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
	kills=$((kills + 1))
	echo "     kill -9 #$kills ($1) at $(( $(date +%s) - t0 )) s: $(q "SELECT count(*) FROM jobs WHERE state = 'running'") running"
}
# A wave of jobs: soak-jobs.awk FIRST COUNT [inference|quota] (job names
# s<N>), queued with hetlab submit (into the inbox when no daemon runs).
wave() {
	awk -v first="$1" -v count="$2" -v out="$D/out" -v "${3:-none}=1" -f "$HERE/soak-jobs.awk" >"wave$1.jsonl"
	"$HETLAB" submit --state st "wave$1.jsonl" >/dev/null || bad "submit wave $1" "$("$HETLAB" submit --state st "wave$1.jsonl" 2>&1 | tail -3)"
	total=$(( $1 + $2 ))
}
S8=
slurm_ours() {   # Slurm jobs of this state in STATE (squeue -t), counted
	squeue -h -t "$1" -o '%j' 2>/dev/null | grep -c "^hetlab-$S8-"
}
preempts() { q "SELECT count(*) FROM decision WHERE kind = 'preempt'"; }
# Waits (up to T s) for a preemption decision beyond count $1.
new_preempt() { T=${2:-40} until_ok sh -c "[ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM decision WHERE kind = 'preempt'\" 2>/dev/null)\" -gt $1 ]"; }
submitted_lines() { grep -c 'Slurm job [0-9]* submitted on' daemon.log; }
restart_ctld() {
	n=$(slurm_ours running)
	sh "$HERE/local-slurm.sh" restart-ctld "$C" >/dev/null 2>&1 || bad "slurmctld restart" "$(tail -n 5 "$C/log/slurmctld.log")"
	echo "     slurmctld restarted at $(( $(date +%s) - t0 )) s with $n of this state's jobs running"
	ctld=$((ctld + 1))
}
ctld=0

start_daemon
S8=$(q "SELECT substr(value, 1, 8) FROM meta WHERE key = 'state_id'")

# --- wave 0 (with t2's jobs): killed right after submissions reach Slurm ---
wave 0 70 quota
T=30 until_ok sh -c "[ \"\$(squeue -h -t all -o %j | grep -c '^hetlab-$S8-')\" -gt 0 ]"
kill9 "right after submissions reached Slurm"
sleep 1
start_daemon

# --- inference while training runs: a preemption, the daemon killed at once;
# the victims checkpoint while it is down ---------------------------------------
training_runs() { T=40 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM jobs WHERE class = 'training' AND state = 'running'\" 2>/dev/null)\" -ge $1 ]"; }
training_runs 3
p=$(preempts)
wave 70 6 inference
new_preempt "$p" 40
check "a preemption before kill #2 ($(preempts) so far)" "$([ "$(preempts)" -gt "$p" ] && echo 1)"
kill9 "right after a preemption"
sleep 2
start_daemon

# --- wave 1 (t2's too), slurmctld restarted while jobs run ------------------
wave 76 60 quota
T=30 until_ok sh -c "[ \"\$(squeue -h -t running -o %j | grep -c '^hetlab-$S8-')\" -ge 6 ]"
restart_ctld

# --- killed while many jobs run, down for 3 s (jobs end meanwhile) ---------
T=30 until_ok sh -c "[ \"\$(squeue -h -t running -o %j | grep -c '^hetlab-$S8-')\" -ge 8 ]"
kill9 "while $(slurm_ours running) jobs run"
sleep 3
start_daemon

# --- wave 2, killed right after its flush logged the submissions -----------
l=$(submitted_lines)
wave 136 60
T=30 until_ok sh -c "[ \"\$(grep -c 'Slurm job [0-9]* submitted on' daemon.log)\" -gt $l ]"
kill9 "right after the flush logged submissions"
start_daemon

# --- the quota: t2's jobs are held; approved ---------------------------------
held=$(q "SELECT count(*) FROM jobs WHERE tenant = 2 AND state = 'held'")
check "quota: tenant t2's jobs are held (${held} held)" "$([ "$held" -gt 0 ] && echo 1)" \
	"$(q "SELECT name || ' ' || state || ' ' || coalesce(reason, '') FROM jobs WHERE tenant = 2")"
"$HETLAB" approve --state st t2 >/dev/null || bad "hetlab approve t2"

# --- another preemption, killed at once ---------------------------------------
training_runs 3
p=$(preempts)
wave 196 6 inference
new_preempt "$p" 40
check "a preemption before kill #5 ($(preempts) so far)" "$([ "$(preempts)" -gt "$p" ] && echo 1)"
kill9 "right after a preemption"
sleep 1
start_daemon

# --- wave 3, slurmctld restarted again, a kill at a random moment -----------
wave 202 50
T=30 until_ok sh -c "[ \"\$(squeue -h -t running -o %j | grep -c '^hetlab-$S8-')\" -ge 6 ]"
restart_ctld
training_runs 2
wave 252 6 inference
sleep "$(awk 'BEGIN { srand(); printf "%.1f", rand() * 4 }')"
kill9 "at a random moment"
sleep 1
start_daemon

# --- the end --------------------------------------------------------------------
all_final() { T=300 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM jobs WHERE state NOT IN ('done', 'failed', 'killed')\")\" = 0 ] && [ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM jobs\")\" = $total ]"; }
all_final
# Starts decided while slurmctld is down (on n5-n6: partition second), the
# daemon killed before they could be submitted: after the restart each is
# submitted to the partition that holds its node.
sh "$HERE/local-slurm.sh" stop-ctld "$C"
wave 258 4 second
T=30 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM jobs WHERE id >= 258 AND state = 'running'\")\" = 4 ]"
kill9 "with starts decided while slurmctld is down"
sh "$HERE/local-slurm.sh" start-ctld "$C" >/dev/null 2>&1 || bad "slurmctld start" "$(tail -n 5 "$C/log/slurmctld.log")"
start_daemon
all_final
echo "     all final at $(( $(date +%s) - t0 )) s"
kill -TERM "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
DPID=
check "the daemon was killed with -9 at least 5 times ($kills) and slurmctld restarted twice ($ctld)" \
	"$([ "$kills" -ge 5 ] && [ "$ctld" -ge 2 ] && echo 1)"
check_eq "every job is final and done" "$(q "SELECT group_concat(state || ':' || n, ' ') FROM (SELECT state, count(*) AS n FROM jobs GROUP BY state)")" "done:$total"
# A preempted job checkpointed and ran again, or it had finished before
# the signal reached it (the daemon killed before sending it): then it
# ran once, never checkpointed. A third way: the signal came before its
# batch script had set its trap (a start a moment earlier), the script
# died of it (Slurm: FAILED 0:10) and the daemon requeued the job as a
# preemption, logging why: it ran again from where it was, nothing to
# checkpoint. The Slurm ids of those runs, from the daemon's log:
sed -n 's/.*: Slurm job \([0-9]*\) [A-Z]*, exit [0-9:]*\( (from sacct)\)*: died of the checkpoint signal before it could checkpoint: requeued.*/\1/p' daemon.log | sort -u >died.txt
odd=$(q "SELECT id || ' ' || name || ' ' || attempt FROM jobs WHERE id IN (SELECT job FROM decision WHERE kind = 'preempt')" |
	while read -r id n a; do
		c=$(grep -c '^ckpt' "out/$n" 2>/dev/null)
		if [ "$a" -ge 1 ] && [ "$c" -ge 1 ]; then :; elif [ "$a" = 0 ] && [ "$c" = 0 ]; then :
		elif [ "$a" -ge 1 ] && grep -q "job $id (Slurm [0-9]*): .*died of the checkpoint signal before it could checkpoint: requeued" daemon.log; then :
		else echo "$n (attempt $a, $c checkpoints)"; fi
	done | head -n 5)
check "preempted jobs checkpointed and ran again, or finished first ($(q "SELECT count(DISTINCT job) FROM decision WHERE kind = 'preempt'") preempted, $(wc -l <died.txt) died of the signal before their trap)" \
	"$([ -z "$odd" ] && echo 1)" "$odd"

# Slurm's account of every run: sacct -D of every Slurm job of this state
# (by name, and the ids of xref), once slurmdbd has them all final.
q "SELECT DISTINCT sid FROM xref" >sids
names=$(awk -v s="$S8" -v n="$total" 'BEGIN { for (i = 0; i < n; i++) printf "%shetlab-%s-%d", i ? "," : "", s, i }')
acct() {
	{
		sacct -n -P -D -X -S now-2hours --name="$names" --format=JobIDRaw,JobName,State,ElapsedRaw,AllocTRES
		sacct -n -P -D -X -j "$(paste -sd, sids)" --format=JobIDRaw,JobName,State,ElapsedRaw,AllocTRES
	} | sort -u >acct.txt
	! awk -F'|' '{ split($3, w, " ") } w[1] == "RUNNING" || w[1] == "PENDING" || w[1] == "COMPLETING" { f = 1 } END { exit !f }' acct.txt
}
T=30 until_ok acct
check_eq "no Slurm job of this state is left in the queue" "$(squeue -h -o %j | grep -c "^hetlab-$S8-")" 0
# One line per hetlab job: ID COMPLETED-RUNS OTHER-RUNS-THAT-RAN-NOT-REQUEUED
# (a run that died of the checkpoint signal before its trap, as the
# daemon logged, counts as requeued: it was, by the daemon).
awk -F'|' -v s="hetlab-$S8-" -v n="$total" '
	FILENAME == "died.txt" { died[$1] = 1; next }
	index($2, s) == 1 { id = substr($2, length(s) + 1); split($3, w, " ")
		if (w[1] == "COMPLETED") done[id]++
		else if ($4 > 0 && w[1] != "REQUEUED" && !(w[1] == "FAILED" && ($1 in died))) { odd[id] = odd[id] " " $1 ":" $3 ":" $4 "s" } }
	index($2, s) != 1 { stray = stray " " $1 ":" $2 }
	END { for (i = 0; i < n; i++) if (done[i] != 1 || odd[i] != "") printf "job %d: %d completed%s\n", i, done[i], odd[i]
	      if (stray != "") print "not named as this state'"'"'s:" stray }' died.txt acct.txt >runs.txt
check "sacct: each job completed exactly once, every other run it had was REQUEUED ($(wc -l <acct.txt) records)" \
	"$([ ! -s runs.txt ] && echo 1)" "$(head -n 8 runs.txt)"
check "sacct: preempted runs are REQUEUED ($(grep -c '|REQUEUED|' acct.txt))" "$(grep -q '|REQUEUED|' acct.txt && echo 1)"
noend=$(for i in $(seq 0 $((total - 1))); do [ "$(tail -n 1 "out/s$i" 2>/dev/null | cut -d' ' -f1)" = end ] || echo "s$i"; done | head -n 5)
check "each job's own log ends with its end" "$([ -z "$noend" ] && echo 1)" "$noend"
sac=$(awk -F'|' '{c = 0; g = 0; n = split($5, a, ","); for (i = 1; i <= n; i++) { split(a[i], kv, "="); if (kv[1] == "cpu") c = kv[2]; if (kv[1] == "gres/gpu") g = kv[2] } cs += $4 * c; gs += $4 * g} END {printf "%.0f %.0f", cs, gs}' acct.txt)
hl=$(sqlite3 -batch -noheader st/results.db "SELECT printf('%.0f %.0f', sum(core_s), sum(gpu_s)) FROM job")
cs_s=${sac% *}; gs_s=${sac#* }; cs_h=${hl% *}; gs_h=${hl#* }
within() { awk -v a="$1" -v b="$2" 'BEGIN {print (b > 0 && (a - b) / b < 0.01 && (b - a) / b < 0.01)}'; }
check "accounting: core-seconds, results.db $cs_h vs sacct $cs_s (within 1 %)" "$(within "$cs_h" "$cs_s")"
check "accounting: GPU-seconds, results.db $gs_h vs sacct $gs_s (within 1 %)" "$(within "$gs_h" "$gs_s")"
rep=$("$HETLAB" report st/results.db --format json 2>/dev/null | python3 -c "import json,sys
d = json.load(sys.stdin)['gpu_util_split']; print('%.0f' % (d['inference_reserved']['gpu_seconds'] + d['offline_dev_shared']['gpu_seconds']))" 2>/dev/null)
check "accounting: hetlab report's GPU-seconds (${rep:-none}) are sacct's ($gs_s)" "$(within "${rep:-0}" "$gs_s")"
approved=$(q "SELECT min(t_us) FROM rec WHERE kind = 'approve'")
early=$(q "SELECT count(*) FROM decision d JOIN jobs j ON j.id = d.job WHERE j.tenant = 2 AND d.kind = 'start' AND d.t_us < ${approved:-0}")
check_eq "quota: no job of t2 started before the approval" "${approved:+$early}" 0
if out=$("$HETLAB" replay st 2>&1); then ok "replay makes the same decisions"
else bad "replay makes the same decisions" "$(printf '%s' "$out" | tail -n 8)"; fi
[ "$fail" -gt 0 ] && logs
summary
