#!/bin/sh
# `hetlab live --executor slurm` tried as a Slurm administrator would, on a
# real local cluster with accounting (tests/slurm/local-slurm.sh: n1..n6,
# partitions debug = n1-n4 and second = n5-n6, slurmdbd + MariaDB so that
# sacct works, CR_Core_Memory, ReturnToService=2), started in a temporary
# directory and stopped on exit (LOCAL_SLURM_DIR=DIR uses a running one).
#
#   sh tests/slurm/trust.sh build/hetlab
#   HETLAB_SLURM_EXPORT=minimal sh tests/slurm/trust.sh build/hetlab   (daemon A with it)
#
# Each check is a way hetlab's picture of the cluster drifted from Slurm's:
#   1. restart: kill -9 while jobs run, they finish meanwhile: recorded
#      with Slurm's exit, none run twice, their cores free again; a job that
#      checkpointed on the preemption signal while the daemon was down is
#      seen at once (the inference job does not wait the grace);
#   2. names: a second state on the same cluster (its own partition, the
#      same job ids) and a user's own job named hetlab-0 are never taken for
#      this state's jobs;
#   3. released is not running: capacity a job not hetlab's holds is out of
#      the policy's reach; a job Slurm does not start (an account limit
#      hetlab does not know) is taken back and counts no usage until Slurm
#      runs it; a node DOWN for a moment under ReturnToService=2 (Slurm
#      requeues the job itself) is a requeue, the job runs again;
#   4. requests: memory per node (three 500 MiB jobs run at once under
#      CR_Core_Memory), the tenant's account, the site's GRES type;
#   5. the environment of a requeued run (HETLAB_ATTEMPT, HETLAB_NODES);
#      a job's environment (slurm.export "minimal"): its user's HOME, USER,
#      LOGNAME and SHELL, nothing of the daemon's;
#   6. slurmctld down: submit, cancel and approve succeed at once, queued;
#   7. accounting: a preempted run is REQUEUED of the same Slurm job in
#      sacct, and results.db agrees with sacct within 1 % of core- and
#      GPU-hours;
#   8-9. logs name Slurm job ids, the pass metrics move, replays agree;
#   12. a preempted job whose batch script dies of the checkpoint signal
#      (before it could trap it: Slurm says FAILED, signal 10) is requeued
#      as a preemption and runs again, not recorded failed; also when
#      slurmctld has forgotten it (read from sacct);
#   13. a job of the site's own that takes a node between hetlab's
#      placement and Slurm's start: hetlab's job is taken back once and
#      runs on the other node (the site's hold takes the cores it frees).
# Never skips: a cluster that does not start is a failure. Prints
# "slurm trust: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
t0=$(date +%s)
die() { echo "FAIL slurm trust: $*"; exit 1; }
[ -x "$HETLAB" ] || die "$HETLAB not found"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue scontrol sinfo scancel sacct sqlite3 python3; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server sqlite3 python3)"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-trust-XXXXXX") || die "mktemp failed"
C=${LOCAL_SLURM_DIR:-$D/cluster}
PIDS=
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	[ -n "${LOCAL_SLURM_DIR:-}" ] || sh "$HERE/local-slurm.sh" stop "$C" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
logs() {
	for f in "$C"/log/slurmctld.log "$D"/*.log; do
		[ -f "$f" ] || continue
		echo "  --- ${f##*/}"
		tail -n 25 "$f" | sed 's/^/  | /'
	done
}
if [ -z "${LOCAL_SLURM_DIR:-}" ] && ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	logs
	die "the cluster did not start"
fi
. "$C/env"
export SLURM_CONF
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   slurm trust: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL slurm trust: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
check() { if [ "$2" = 1 ]; then ok "$1"; else bad "$1" "${3:-}"; fi; }
q() { sqlite3 -batch -noheader "$D/$1/state.db" "$2"; }
# Polls "$@" every 0.1 s until it succeeds, for up to $T s (default 40).
until_ok() {
	end=$(( $(date +%s) + ${T:-40} ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
jobstate() { q "$1" "SELECT state FROM jobs WHERE name = '$2'"; }
is_state() { [ "$(jobstate "$1" "$2")" = "$3" ]; }
sid_of() { q "$1" "SELECT ref FROM jobs WHERE name = '$2'"; }
# Slurm's state of a Slurm job id (squeue, else sacct's last record).
sstate() {
	s=$(squeue -h -t all -j "$1" -o %T 2>/dev/null)
	[ -n "$s" ] || s=$(sacct -n -P -X -j "$1" --format=State 2>/dev/null | tail -n 1 | cut -d' ' -f1)
	echo "$s"
}
is_sstate() { [ "$(sstate "$1")" = "$2" ]; }
# Field $2 of Slurm job $1's last record in sacct, once slurmdbd has it
# (its record of a job that just ended can lag a moment).
acct() {
	i=0
	while :; do
		v=$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$1" --format="$2" 2>/dev/null | tail -n 1)
		[ -n "$v" ] && [ "$v" != Unknown ] && break
		i=$((i + 1))
		[ $i -ge 50 ] && break
		sleep 0.2
	done
	echo "$v"
}
cd "$D" || exit 1
mkdir -p out

# The scenarios: state A drives partition debug (n1-n4), state B second (n5-n6).
scn() {
	cat <<EOF
{
  "name": "trust-$1", "seed": 1, "policy": "tiered",
  "policy_params": { "preempt_exempt_s": 0 },
  "node_types": [ { "name": "gpu2", "gpu": "L40S-48GB", "gpus": 2, "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "nodes": [ { "type": "gpu2", "count": $2, "names": $3 } ] } ],
  "org": { "tenants": [ { "name": "t0" }, { "name": "t1" } ] },
  "checkpoint": { "training": { "grace_s": 60 } }
}
EOF
}
scn A 4 '["n1", "n2", "n3", "n4"]' >scnA.json
scn B 2 '["n5", "n6"]' >scnB.json
cat >A.json <<'EOF'
{ "scenario": "scnA.json", "executor": "slurm", "state_dir": "sA", "tick_s": 0.1, "probe_every_s": 1, "probes": "none",
  "results_every_s": 0,
  "slurm": { "partition": "debug", "accounts": { "t0": "t0", "t1": "t1" }, "gres_types": { "L40S-48GB": "fake" },
             "qos": { "inference": "hi" }, "start_timeout_s": 5 },
  "metrics": { "port": 0 } }
EOF
# B keeps the login environment (slurm.export "login": --export=NONE).
sed 's/scnA/scnB/; s/"sA"/"sB"/; s/"debug"/"second"/; s/"start_timeout_s": 5/&, "export": "login"/' A.json >B.json
sed 's/"sA"/"sU"/; s|"tick_s"|"socket": "'"$D"'/U.sock", "tick_s"|; s/"start_timeout_s": 5/&, "export": "minimal"/' A.json >U.json
# HETLAB_SLURM_EXPORT=minimal runs A (most checks) with that environment.
if [ -n "${HETLAB_SLURM_EXPORT:-}" ]; then
	sed -i 's/"start_timeout_s": 5/&, "export": "'"$HETLAB_SLURM_EXPORT"'"/' A.json
fi

start_daemon() {   # NAME: config NAME.json, log NAME.log (appended); waits for this start's line
	n=$(grep -c 'executor, policy' "$1.log" 2>/dev/null)
	"$HETLAB" live --config "$1.json" >>"$1.log" 2>&1 &
	eval "PID_$1=$!"
	PIDS="$PIDS $!"
	until_ok sh -c "[ \"\$(grep -c 'executor, policy' '$1.log')\" -gt ${n:-0} ]"
}
pid_of() { eval "echo \$PID_$1"; }
kill9() { kill -9 "$(pid_of "$1")" 2>/dev/null; wait "$(pid_of "$1")" 2>/dev/null; }
stop_daemon() { kill -TERM "$(pid_of "$1")" 2>/dev/null; wait "$(pid_of "$1")" 2>/dev/null; }
# A job line: NAME CLASS NODES CORES MEM_MIB SECONDS [GPUS [TENANT [SECONDS_LATER]]]. It
# logs "ID ATTEMPT SLURM_NODES HETLAB_NODES" to out/NAME.where at each run,
# checkpoints on SIGUSR1 (one second, then exits 0), and runs SECONDS_LATER
# after a requeue.
job() {
	printf '{"name": "%s", "class": "%s", "tenant": %s, "req": {"nodes": %s, "cores": %s, "mem_mib": %s, "gpus": %s}, "argv": ["sh", "-c", "echo $HETLAB_JOB_ID $HETLAB_ATTEMPT $(scontrol show hostnames $SLURM_JOB_NODELIST | paste -sd, -) $HETLAB_NODES >> %s/out/%s.where; trap '"'"'echo $HETLAB_ATTEMPT >> %s/out/%s.ckpt; sleep 1; exit 0'"'"' USR1; if [ $HETLAB_ATTEMPT = 0 ]; then n=%s; else n=%s; fi; i=0; while [ $i -lt $n ]; do sleep 0.1; i=$((i+1)); done"]}\n' \
		"$1" "$2" "${8:-0}" "$3" "$4" "$5" "${7:-0}" "$D" "$1" "$D" "$1" "$(($6 * 10))" "$((${9:-$6} * 10))"
}
submit() { "$HETLAB" submit --state "$1" - >/dev/null; }
# cancel_left STATE NAME...: cancels the named jobs not ended yet, then
# waits until every job of STATE has ended.
cancel_left() {
	st=$1
	shift
	for nm; do
		id=$(q "$st" "SELECT id FROM jobs WHERE name = '$nm' AND state NOT IN ('done', 'failed', 'killed')")
		[ -n "$id" ] && "$HETLAB" cancel --state "$st" "$id" >/dev/null
	done
	T=40 until_ok sh -c "[ \"\$(sqlite3 '$D/$st/state.db' \"SELECT count(*) FROM jobs WHERE state NOT IN ('done', 'failed', 'killed')\")\" = 0 ]"
}

start_daemon A
start_daemon B

# --- 1. restart: jobs that end while the daemon is down --------------------
{ job r1 batch 1 1 500 4; job r2 batch 1 1 500 4; } | submit sA
S8A=$(q sA "SELECT substr(value, 1, 8) FROM meta WHERE key = 'state_id'")
if until_ok sh -c "[ \"\$(squeue -h -t running -n hetlab-$S8A-0,hetlab-$S8A-1 -o %i | wc -l)\" = 2 ]"; then
	ok "restart: two jobs run in Slurm"
else
	bad "restart: two jobs run in Slurm" "$(squeue -t all 2>&1 | tail -5)"
fi
kill9 A
s1=$(q sA "SELECT sid FROM xref WHERE job = 0")
s2=$(q sA "SELECT sid FROM xref WHERE job = 1")
check "restart: Slurm ids recorded as sbatch answered ($s1, $s2)" "$([ -n "$s1" ] && [ -n "$s2" ] && echo 1)"
T=30 until_ok sh -c "[ \"\$(sacct -n -X -P -j $s1,$s2 --format=State | sort -u)\" = COMPLETED ]"
check_eq "restart: both finished in Slurm while the daemon was down" "$(sacct -n -X -P -j "$s1,$s2" --format=State | sort -u)" COMPLETED
job wide batch 4 4 2000 2 | submit sA   # queued in the inbox while no daemon runs
start_daemon A
T=30 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT group_concat(state || ':' || coalesce(reason, '-'), ' ') FROM jobs WHERE name IN ('r1', 'r2')\")\" = 'done:- done:-' ]"
check_eq "restart: both recorded done (Slurm's exit), not killed at walltime, not lost" \
	"$(q sA "SELECT group_concat(state || ':' || coalesce(reason, '-'), ' ') FROM jobs WHERE name IN ('r1', 'r2')")" "done:- done:-"
T=40 until_ok is_state sA wide done
check_eq "restart: their cores are free again: the 4-node job ran" "$(jobstate sA wide)" done
check_eq "restart: each ran once in Slurm" "$(sacct -n -X -P -D -j "$s1,$s2" --format=JobIDRaw | wc -l)" 2
grep -q "job 0 (Slurm $s1): Slurm job $s1 COMPLETED" A.log
check "restart: the log names the Slurm job and its end" "$((! $?))" "$(grep 'job 0' A.log | tail -3)"

# Preemption whose checkpoint exit happens while the daemon is down.
{ for k in 1 2 3 4; do job tr$k training 1 4 2000 120 0 0 2; done; } | submit sA
T=40 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT count(*) FROM jobs WHERE name LIKE 'tr%' AND state = 'running'\")\" = 4 ] && [ \"\$(cat out/tr*.where 2>/dev/null | wc -l)\" = 4 ]"
check_eq "preempt: four training jobs run" "$(q sA "SELECT count(*) FROM jobs WHERE name LIKE 'tr%' AND state = 'running'")" 4
job inf inference 1 4 2000 3 | submit sA
T=20 until_ok grep -q '^.*preempt job' A.log
kill9 A
victim=$(q sA "SELECT j.name FROM decision d JOIN jobs j ON j.id = d.job WHERE d.kind = 'preempt' LIMIT 1")
vsid=$(sid_of sA "$victim")
# The victim checkpoints (1 s) and its wrapper requeues it held, while no daemon runs.
T=20 until_ok sh -c "[ \"\$(squeue -h -j $vsid -o %r)\" = 'job requeued in held state' ] || squeue -h -j $vsid -o '%T %R' | grep -q 'PENDING.*held'"
check_eq "preempt: the victim checkpointed on the signal while the daemon was down" "$(cat "out/$victim.ckpt" 2>/dev/null)" 0
t_restart=$(date +%s)
start_daemon A
T=20 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT state FROM jobs WHERE name = 'inf'\")\" = running ] || [ \"\$(sqlite3 '$D/sA/state.db' \"SELECT state FROM jobs WHERE name = 'inf'\")\" = done ]"
t_inf=$(date +%s)
check "preempt: seen at the restart, the inference job starts at once (not after the 60 s grace)" \
	"$(( t_inf - t_restart < 20 ))" "inference $(jobstate sA inf) after $((t_inf - t_restart)) s"
grep -q 'checkpointed and requeued itself held' A.log
check "preempt: the log says the victim requeued itself" "$((! $?))"

# --- 2. names: a second state, the same job ids, a user's job hetlab-0 ------
user=$(sbatch --parsable -p second -N1 -c 1 --mem=100 -J hetlab-0 --wrap 'sleep 40')
job b0 batch 1 1 500 3 | submit sB
T=30 until_ok is_state sB b0 done
sa0=$(q sA "SELECT ref FROM jobs WHERE id = 0")
sb0=$(q sB "SELECT ref FROM jobs WHERE id = 0")
check "names: job 0 of each state is its own Slurm job (A: $sa0, B: $sb0)" \
	"$([ -n "$sa0" ] && [ -n "$sb0" ] && [ "$sa0" != "$sb0" ] && echo 1)"
check_eq "names: B's job 0 ran B's program" "$(cut -d' ' -f1,2 out/b0.where)" "0 0"
check_eq "env: B (slurm.export login) submits --export=NONE" \
	"$(acct "$(q sB "SELECT ref FROM jobs WHERE id = 0")" SubmitLine%500 | grep -o -- '--export=[A-Z]*')" "--export=NONE"
check_eq "names: the user's own hetlab-0 is untouched" "$(sstate "$user")" RUNNING
kill9 B
# A Slurm job being replaced by a new one whose cancel a kill -9 cut short
# (its row marked replaced, open = 2, then the scancel): held, B's name and
# comment. The restart cancels it and closes its row (it used to stay held
# in the queue for ever: the restart read only open rows).
SIDB=$(q sB "SELECT value FROM meta WHERE key = 'state_id'")
rep=$(sbatch --parsable --hold -p second -N1 -c 1 --mem=100 -J "hetlab-$(printf %.8s "$SIDB")-0" \
	--comment "hetlab:$SIDB:0:0" --wrap 'sleep 40')
sqlite3 "$D/sB/state.db" "INSERT INTO xref(job, sid, attempt, at_unix, open, shape) VALUES(0, $rep, 0, 0, 2, '')"
start_daemon B
T=20 until_ok sh -c "[ \"\$(sqlite3 '$D/sB/state.db' 'SELECT open FROM xref WHERE sid = $rep')\" = 0 ]"
check_eq "names: after B's restart, a replaced Slurm job whose cancel was cut short is cancelled, its row closed" \
	"$(sstate "$rep") $(q sB "SELECT open FROM xref WHERE sid = $rep")" "CANCELLED 0"
check_eq "names: after B's restart, the user's job still runs" "$(sstate "$user")" RUNNING
check_eq "names: and A's job 0 is still A's" "$(q sA "SELECT state || ' ' || ref FROM jobs WHERE id = 0")" "done $sa0"
scancel "$user"

# The victim runs again and finishes (2 s); then the training jobs still
# there are cancelled.
T=60 until_ok is_state sA "$victim" done
check_eq "preempt: the victim ran again (attempt 1) and finished" "$(q sA "SELECT state || ' ' || attempt FROM jobs WHERE name = '$victim'")" "done 1"
cancel_left sA tr1 tr2 tr3 tr4
T=20 until_ok sh -c "[ -z \"\$(squeue -h -p debug -o %i)\" ]"

# --- 3. released is not running -----------------------------------------------
# 3a. A job of the site's own holds n2 whole: hetlab sees it and places elsewhere.
own=$(sbatch --parsable -p debug -w n2 -N1 -c 4 --mem=3000 -J sitejob --wrap 'sleep 60')
T=20 until_ok sh -c "'$HETLAB' queue --state sA | grep -q 'held outside hetlab on n2: 4 cores'"
check_eq "foreign: hetlab queue shows what the site's job holds" \
	"$("$HETLAB" queue --state sA | grep -o 'held outside hetlab on n2: 4 cores, 0 GPUs, 3000 MiB')" \
	"held outside hetlab on n2: 4 cores, 0 GPUs, 3000 MiB"
port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' A.log | tail -n 1)
m=$(python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode())" 2>/dev/null)
check_eq "foreign: the metrics show it" "$(printf '%s\n' "$m" | grep '^hetlab_node_foreign_cores{node="n2"' | awk '{print $2}')" 4
{ for k in 1 2 3; do job whole$k batch 1 4 2000 3; done; } | submit sA
T=40 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT count(*) FROM jobs WHERE name LIKE 'whole%' AND state = 'done'\")\" = 3 ]"
check_eq "foreign: three whole-node jobs ran, none on n2" \
	"$(cat out/whole*.where | awk '{print $3}' | sort | tr '\n' ' ')" "n1 n3 n4 "
# The daemon killed -9 with the hold recorded, the site's job gone while
# it is down: the restart releases the hold. (It kept it for ever: the
# replay took it again, and the restart compared Slurm's view, no hold,
# with no hold either: nothing changed, nothing was recorded; the soak's
# gangs never started on such a node.)
kill9 A
scancel "$own"
T=20 until_ok sh -c "[ -z \"\$(squeue -h -j $own -o %i 2>/dev/null)\" ]"
start_daemon A
port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' A.log | tail -n 1)   # A's new port
T=20 until_ok sh -c "! '$HETLAB' queue --state sA | grep -q 'held outside hetlab on n2'"
check_eq "foreign: a hold whose job ended while the daemon was down is released after the restart" \
	"$("$HETLAB" queue --state sA | grep -c 'held outside hetlab on n2')" 0

# 3b. An account limit hetlab does not know: Slurm holds one job back.
sacctmgr -i modify account t1 set GrpJobs=1 >/dev/null
{ job lim1 batch 1 1 500 6 0 1; job lim2 batch 1 1 500 6 0 1; } | submit sA
T=60 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT count(*) FROM jobs WHERE name LIKE 'lim%' AND state = 'done'\")\" = 2 ]"
sacctmgr -i modify account t1 set GrpJobs=-1 >/dev/null
check_eq "limit: both ran" "$(jobstate sA lim1) $(jobstate sA lim2)" "done done"
back=$(q sA "SELECT j.name FROM decision d JOIN jobs j ON j.id = d.job WHERE j.name LIKE 'lim%' AND d.kind = 'requeue' AND d.detail LIKE '%not started by the executor%' LIMIT 1")
first=$([ "$back" = lim1 ] && echo lim2 || echo lim1)
check "limit: the job Slurm held back was taken back, not counted running (${back:-none})" "$([ -n "$back" ] && echo 1)" \
	"$(q sA "SELECT j.name || ' ' || kind || ' ' || detail FROM decision d JOIN jobs j ON j.id = d.job WHERE j.name LIKE 'lim%'")"
e1=$(acct "$(sid_of sA "$first")" End)
s2=$(acct "$(sid_of sA "${back:-lim2}")" Start)
hs=$(sqlite3 -batch -noheader sA/state.db "SELECT start_us FROM jobs WHERE name = '${back:-lim2}'")
ep=$(q sA "SELECT value FROM meta WHERE key = 'epoch_unix_us'")
check "limit: Slurm ran it after the first ended ($s2 >= $e1), and so says hetlab ($(( (ep + hs) / 1000000 )))" \
	"$([ "$s2" -ge "$e1" ] && [ $(( (ep + hs) / 1000000 )) -ge "$e1" ] && echo 1)"

# 3c. n3 DOWN for a moment: Slurm requeues the job on it by itself.
job flap batch 1 4 2000 20 0 0 3 | submit sA
# Running in Slurm, and seen running by hetlab: a run Slurm started and
# requeued between two of hetlab's reads is taken for one never started
# (docs/slurm.md, limits), so its next run would be the same attempt.
T=20 until_ok test -s out/flap.where
T=20 until_ok is_state sA flap running
fnode=$(awk '{print $3}' out/flap.where)
# DOWN at the start of a second: hetlab then places the requeued job
# again within the second of the kill, when the node's slurmd refuses to
# launch it ("already killed"; docs/slurm.md) unless the placement waits.
python3 -c 'import time; time.sleep(1.02 - time.time() % 1)'
scontrol update NodeName="$fnode" State=DOWN Reason=flap
scontrol update NodeName="$fnode" State=RESUME
T=60 until_ok is_state sA flap done
check_eq "flap: the job ran again and finished" "$(jobstate sA flap)" done
check "flap: hetlab saw Slurm's requeue" \
	"$(q sA "SELECT count(*) > 0 FROM decision d JOIN jobs j ON j.id = d.job WHERE j.name = 'flap' AND d.kind = 'requeue' AND d.detail LIKE '%Slurm requeued it%'")" \
	"$(q sA "SELECT kind || ' ' || detail FROM decision d JOIN jobs j ON j.id = d.job WHERE j.name = 'flap'")"
check_eq "env: the requeued run was told attempt 1 and the nodes it ran on" \
	"$(awk 'NR == 2 {print $2, ($3 == $4)}' out/flap.where)" "1 1"

# 3d. Requeued by an administrator (scontrol requeue) at the start of a
# second: its node is up and free, so hetlab places it there again within
# the second of the kill, when that node's slurmd refuses to launch it
# ("already killed", docs/slurm.md) unless the placement waits.
job rq batch 1 4 2000 20 0 0 3 | submit sA
T=20 until_ok test -s out/rq.where
T=20 until_ok is_state sA rq running
python3 -c 'import time; time.sleep(1.02 - time.time() % 1)'
scontrol requeue "$(sid_of sA rq)"
T=60 until_ok is_state sA rq done
check_eq "requeue: the job an administrator requeued ran again and finished" "$(jobstate sA rq)" done
# Whether Slurm launches it within the kill's second depends on when its
# scheduler next runs; the placement's begin is what hetlab decides.
rqs=$(sid_of sA rq)
kill_s=$(grep "Requeuing JobId=$rqs\$" "$C/log/slurmctld.log" | tail -n 1 | cut -c2-20)
begin_s=$(grep "setting begin to .* for JobId=$rqs\$" "$C/log/slurmctld.log" | tail -n 1 | sed 's/.*setting begin to \([^ ]*\) .*/\1/')
check "requeue: placed again to begin after the second of the kill ($kill_s < $begin_s)" \
	"$([ -n "$kill_s" ] && [ -n "$begin_s" ] && [ "$(printf '%s\n%s\n' "$kill_s" "$begin_s" | sort | head -n 1)" = "$kill_s" ] && [ "$kill_s" != "$begin_s" ] && echo 1)"
check_eq "requeue: again on the node that killed it, the same Slurm job, attempt 1" \
	"$(awk 'NR == 1 {n = $3} NR == 2 {print $2, ($3 == n)}' out/rq.where) $(q sA "SELECT count(*) FROM xref x JOIN jobs j ON j.id = x.job WHERE j.name = 'rq'")" "1 1 1"

# --- 4. requests: memory, account, GRES type ---------------------------------
{ for k in 1 2 3; do job mem$k batch 1 1 500 4 0 $((k % 2)); done; job g1 batch 1 1 500 3 1; } | submit sA
T=40 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT count(*) FROM jobs WHERE (name LIKE 'mem%' OR name = 'g1') AND state = 'done'\")\" = 4 ]"
ids=$(for k in 1 2 3; do sid_of sA mem$k; done | paste -sd, -)
over=$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$ids" --format=Start,End | awk -F'|' 'NR == 1 {ms = $1; me = $2} {if ($1 > ms) ms = $1; if ($2 < me) me = $2} END {print (ms < me)}')
check_eq "memory: three 500 MiB jobs ran at once (CR_Core_Memory)" "$over" 1
# slurmdbd may not have the ended jobs' requests yet (ReqMem "16?"): waited for.
T=20 until_ok sh -c "[ \"\$(sacct -n -X -P -j '$ids' --format=ReqMem | sort -u)\" = 500M ]"
check_eq "memory: each asked 500M per node" "$(sacct -n -X -P -j "$ids" --format=ReqMem | sort -u)" 500M
check_eq "account: each tenant's account" \
	"$(for k in 1 2 3; do acct "$(sid_of sA mem$k)" Account; done | tr '\n' ' ')" "t1 t0 t1 "
check_eq "qos: the inference class's QOS" "$(acct "$(sid_of sA inf)" QOS)" hi
# A time-sliced share of a GPU needs the site's shard GRES: refused, clearly.
printf '{"name": "share", "class": "dev", "req": {"nodes": 1, "cores": 1, "mem_mib": 100, "gpus": 1, "gpu_milli": 500}, "argv": ["true"]}\n' | submit sA
T=20 until_ok is_state sA share failed
check_eq "refusal: a GPU share without slurm.shards_per_gpu fails, saying why" \
	"$(grep -c "could not start: a 500/1000 share of a GPU: time-sliced shares need Slurm's shard GRES" A.log)" 1
check_eq "gres: the site's GPU type" "$(acct "$(sid_of sA g1)" SubmitLine%500 | grep -o -- '--gres=gpu:fake:1')" "--gres=gpu:fake:1"

# --- 6. slurmctld down: requests are queued, not refused ---------------------
sh "$HERE/local-slurm.sh" stop-ctld "$C"
out6=$({ job down1 batch 1 1 500 2; job down2 batch 1 1 500 2; job down3 batch 1 1 500 30; } | "$HETLAB" submit --state sA - 2>&1)
check "down: hetlab submit succeeds while slurmctld is down" "$([ $? = 0 ] && echo 1)" "$out6"
sleep 1
id3=$(q sA "SELECT max(id) FROM jobs")
out6=$("$HETLAB" approve --state sA t0 2>&1)
check "down: hetlab approve succeeds while slurmctld is down" "$([ $? = 0 ] && echo 1)" "$out6"
T=20 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT count(*) FROM jobs WHERE name LIKE 'down%'\")\" = 3 ]"
id3=$(q sA "SELECT id FROM jobs WHERE name = 'down3'")
out6=$("$HETLAB" cancel --state sA "$id3" 2>&1)
check "down: hetlab cancel succeeds while slurmctld is down" "$([ $? = 0 ] && echo 1)" "$out6"
healthz() { python3 -c "import urllib.request,urllib.error
try: print(urllib.request.urlopen('http://127.0.0.1:$port/healthz', timeout=5).status)
except urllib.error.HTTPError as e: print(e.code)" 2>/dev/null; }
T=60 until_ok sh -c "[ \"\$(python3 -c \"import urllib.request,urllib.error
try: print(urllib.request.urlopen('http://127.0.0.1:$port/healthz', timeout=5).status)
except urllib.error.HTTPError as e: print(e.code)\" 2>/dev/null)\" = 503 ]"
check_eq "down: /healthz says so" "$(healthz)" 503
sh "$HERE/local-slurm.sh" start-ctld "$C"
T=60 until_ok sh -c "[ \"\$(sqlite3 '$D/sA/state.db' \"SELECT group_concat(state, ' ') FROM jobs WHERE name LIKE 'down%' ORDER BY id\")\" = 'done done killed' ]"
check_eq "down: once Slurm is back the jobs ran (the cancelled one did not)" \
	"$(q sA "SELECT group_concat(state, ' ') FROM jobs WHERE name LIKE 'down%' ORDER BY id")" "done done killed"

# --- 7. accounting --------------------------------------------------------------
vrec=$(sacct -n -P -D -X -j "$vsid" --format=State | tr '\n' ' ')
check_eq "sacct: the preempted run is REQUEUED of the same Slurm job, then it completed" "$vrec" "REQUEUED COMPLETED "
T=20 until_ok sh -c "[ -z \"\$(squeue -h -p debug -o %i)\" ]"
stop_daemon A
stop_daemon B
check "results: the live results.db verifies (hetlab audit verify)" \
	"$("$HETLAB" audit verify sA/results.db >audit.out 2>&1 && echo 1)" "$(cat audit.out)"
check_eq "results: slurm_job links each hetlab job to its Slurm jobs" \
	"$(sqlite3 -batch -noheader sA/results.db "SELECT count(*) FROM slurm_job WHERE job = $(q sA "SELECT id FROM jobs WHERE name = '$victim'") AND slurm_id = $vsid" 2>&1)" 1
ids=$(sacct -n -P -X -S now-1hour --name="$(q sA "SELECT group_concat('hetlab-$S8A-' || id, ',') FROM jobs")" --format=JobIDRaw | sort -u | paste -sd, -)
sac=$(sacct -n -P -D -X -j "$ids" --format=ElapsedRaw,AllocTRES | awk -F'|' '{c = 0; g = 0; n = split($2, a, ","); for (i = 1; i <= n; i++) { split(a[i], kv, "="); if (kv[1] == "cpu") c = kv[2]; if (kv[1] == "gres/gpu") g = kv[2] } cs += $1 * c; gs += $1 * g} END {printf "%.0f %.0f", cs, gs}')
hl=$(sqlite3 -batch -noheader "sA/results.db" "SELECT printf('%.0f %.0f', sum(core_s), sum(gpu_s)) FROM job")
cs_s=${sac% *}; gs_s=${sac#* }; cs_h=${hl% *}; gs_h=${hl#* }
check "accounting: core-seconds, results.db $cs_h vs sacct $cs_s (within 1 %)" \
	"$(awk -v a="$cs_h" -v b="$cs_s" 'BEGIN {print (b > 0 && (a - b) / b < 0.01 && (b - a) / b < 0.01)}')"
check "accounting: GPU-seconds, results.db $gs_h vs sacct $gs_s (within 1 %)" \
	"$(awk -v a="$gs_h" -v b="$gs_s" 'BEGIN {print (b > 0 && (a - b) / b < 0.01 && (b - a) / b < 0.01)}')"
rep=$("$HETLAB" report sA/results.db --format json 2>/dev/null | python3 -c "import json,sys
d = json.load(sys.stdin)['gpu_util_split']; print('%.0f' % (d['inference_reserved']['gpu_seconds'] + d['offline_dev_shared']['gpu_seconds']))" 2>/dev/null)
check "accounting: hetlab report's GPU-seconds ($rep) are sacct's ($gs_s)" \
	"$(awk -v a="${rep:-0}" -v b="$gs_s" 'BEGIN {print (b > 0 && (a - b) / b < 0.01 && (b - a) / b < 0.01)}')"

# --- 11. a job of another user runs as that user ---------------------------------
# The daemon is root; nobody submits through its socket (identity from the
# kernel): Slurm runs the job as nobody, in nobody's directory, in the
# minimal environment (slurm.export "minimal"): nobody's HOME, USER,
# LOGNAME and SHELL from passwd, nothing of the daemon's environment.
mkdir -p "$D/nob"
chmod 755 "$D"
chmod 777 "$D/nob" out
HETLAB_SECRET=x
export HETLAB_SECRET
start_daemon U
unset HETLAB_SECRET
(cd "$D/nob" && printf '{"name": "asnobody", "class": "batch", "req": {"nodes": 1, "cores": 1, "mem_mib": 100}, "argv": ["sh", "-c", "id -un > %s/nob/who; env > %s/nob/env"]}\n' "$D" "$D" |
	runuser -u nobody -- "$HETLAB" submit --socket "$D/U.sock" - >/dev/null 2>"$D/nob.err")
T=40 until_ok is_state sU asnobody done
check_eq "users: nobody's job ran in Slurm as nobody" "$(acct "$(sid_of sU asnobody)" User) $(cat "$D/nob/who" 2>/dev/null)" "nobody nobody"
pw=$(getent passwd nobody)
envof() { sed -n "s/^$1=//p" "$D/nob/env" 2>/dev/null; }
check_eq "env: nobody's job has nobody's HOME, USER, LOGNAME, SHELL (passwd)" \
	"$(envof HOME) $(envof USER) $(envof LOGNAME) $(envof SHELL)" \
	"$(echo "$pw" | cut -d: -f6) nobody nobody $(echo "$pw" | cut -d: -f7)"
check_eq "env: nothing of the daemon's environment (HETLAB_SECRET), the minimal PATH" \
	"$(grep -c '^HETLAB_SECRET=' "$D/nob/env" 2>/dev/null) $(envof PATH)" "0 /usr/local/bin:/usr/bin:/bin"
check_eq "env: sbatch --export=ALL" "$(acct "$(sid_of sU asnobody)" SubmitLine%500 | grep -o -- '--export=[A-Z]*')" "--export=ALL"
check "users: its output is in nobody's directory, nobody's" \
	"$(ls -l "$D"/nob/hetlab-*-*.out 2>/dev/null | awk '{print $3}' | grep -qx nobody && echo 1)" "$(ls -l "$D/nob" 2>&1; cat "$D/nob.err")"
stop_daemon U

# --- 10. one daemon, two partitions --------------------------------------------
scn C 6 '["n1", "n2", "n3", "n4", "n5", "n6"]' >scnC.json
sed 's/scnA/scnC/; s/"sA"/"sC"/; s/"partition": "debug"/"partition": ["debug", "second"], "class_partition": { "dev": "second" }/' A.json >C.json
start_daemon C
{ job c1 batch 4 4 2000 2; job c2 dev 1 1 500 2; job c3 batch 1 4 2000 2; job c4 batch 1 4 2000 2; job c5 batch 1 4 2000 2; } | submit sC
T=60 until_ok sh -c "[ \"\$(sqlite3 '$D/sC/state.db' \"SELECT count(*) FROM jobs WHERE state = 'done'\")\" = 5 ]"
check_eq "partitions: every job of a two-partition daemon ran" "$(q sC "SELECT group_concat(state, ' ') FROM jobs")" "done done done done done"
# (squeue, not sacct: slurmdbd may not have the record of a job just ended yet)
check_eq "partitions: the 4-node job in debug" "$(squeue -h -t all -j "$(sid_of sC c1)" -o %P)" debug
check_eq "partitions: each job in the partition holding its nodes" \
	"$(for k in 2 3 4 5; do n=$(awk '{print $3}' out/c$k.where); p=$(squeue -h -t all -j "$(sid_of sC c$k)" -o %P); case $n in n[56]) [ "$p" = second ] && echo ok ;; *) [ "$p" = debug ] && echo ok ;; esac; done | wc -l)" 4
stop_daemon C

# --- 12. a job that dies of the checkpoint signal ---------------------------------
# The soak's race (its job 25): the preemption signal reached a job's batch
# script before the script had set its trap, and Slurm said FAILED with
# signal 10; hetlab recorded the job failed. Interposers in slurm.bindir
# make it happen on purpose for daemon P: its scancel with the checkpoint
# signal kills the batch script instead (KILL: no trap can take that), and
# its squeue and sacct show that job's signal 9 as the checkpoint
# signal's 10. The other commands are Slurm's own.
mkdir -p ibin
for c in sbatch scontrol sinfo; do ln -sf "$(command -v $c)" ibin/$c; done
# (The batch script is killed as a process, on its node here: a Slurm
# signal KILL is taken for a cancel, CANCELLED 0:15.)
cat >ibin/scancel <<EOF
#!/bin/sh
for a; do id=\$a; done
case " \$* " in *" --signal=USR1 "* | *" --signal=10 "*)
	pid=\$(pgrep -f "/spool/.*/job0*\$id/slurm_script" | head -n 1)
	[ -n "\$pid" ] || exit 1
	echo "\$id" >>"$D/ibin/died"
	[ -e "$D/ibin/forget_on" ] && echo "\$id" >>"$D/ibin/forget"
	kill -KILL "\$pid" || exit 1
	# 12c: the daemon dies with the signal sent, before it learns more.
	if [ -e "$D/ibin/kill_on" ]; then rm -f "$D/ibin/kill_on"; echo "\$id \$PPID" >"$D/ibin/killed"; kill -KILL "\$PPID"; fi
	exit 0 ;;
esac
exec "$(command -v scancel)" "\$@"
EOF
# rewrite REAL FIELD FROM TO DIED FORGET ARGS...: REAL's output with the
# '|'-separated FIELD (the exit: squeue -O's raw wait status, sacct -P's
# CODE:SIGNAL) FROM made TO on the lines of the jobs listed in DIED, and
# without the lines of those listed in FORGET; REAL's exit status.
cat >ibin/rewrite <<'EOS'
#!/bin/sh
real=$1 field=$2 from=$3 to=$4 died=$5 forget=$6
shift 6
out=$("$real" "$@")
rc=$?
[ -n "$out" ] && printf '%s\n' "$out" | awk -F'|' -v OFS='|' -v f="$field" -v from="$from" -v to="$to" \
	-v died="$died" -v forget="$forget" '
	BEGIN { while ((getline l < died) > 0) d[l] = 1; while ((getline l < forget) > 0) g[l] = 1 }
	{ id = $1; gsub(/ /, "", id); if (id in g) next; v = $f; gsub(/ /, "", v); if ((id in d) && v == from) $f = to; print }'
exit $rc
EOS
printf '#!/bin/sh\nexec sh "%s/ibin/rewrite" "%s" 3 9 10 "%s/ibin/died" "%s/ibin/forget" "$@"\n' "$D" "$(command -v squeue)" "$D" "$D" >ibin/squeue
printf '#!/bin/sh\nexec sh "%s/ibin/rewrite" "%s" 4 0:9 0:10 "%s/ibin/died" /dev/null "$@"\n' "$D" "$(command -v sacct)" "$D" >ibin/sacct
chmod 755 ibin/scancel ibin/squeue ibin/sacct
: >ibin/died
: >ibin/forget
scn P 2 '["n5", "n6"]' >scnP.json
sed 's/scnA/scnP/; s/"sA"/"sP"/; s/"debug"/"second"/; s|"start_timeout_s": 5|&, "bindir": "'"$D"'/ibin"|' A.json >P.json
# ckpt_round V1 V2 INF FILE: two training victims on P's two nodes, both
# running, then an inference job that preempts one; waits until the
# interposer has written FILE.
ckpt_round() {
	{ job "$1" training 1 4 2000 40 0 0 2; job "$2" training 1 4 2000 40 0 0 2; } | submit sP
	T=40 until_ok sh -c "[ \"\$(cat out/$1.where out/$2.where 2>/dev/null | wc -l)\" = 2 ]"
	job "$3" inference 1 4 2000 2 | submit sP
	T=30 until_ok sh -c "[ -s ibin/$4 ]"
}
# victim V1 V2: the one of the two the policy preempted.
victim() { q sP "SELECT j.name FROM decision d JOIN jobs j ON j.id = d.job WHERE d.kind = 'preempt' AND j.name IN ('$1', '$2') LIMIT 1"; }
# ran_again LABEL NAME: NAME ends done, on its second attempt, no reason.
ran_again() {
	T=60 until_ok is_state sP "$2" done
	check_eq "$1" "$(q sP "SELECT state || ' ' || attempt || ' ' || coalesce(reason, '-') FROM jobs WHERE name = '$2'")" "done 1 -"
}
start_daemon P
ckpt_round pv1 pv2 pinf died
pvic=$(victim pv1 pv2)
dsid=$(head -n 1 ibin/died)
# (squeue -O in hetlab's order: the interposer rewrites the third field.)
dst() { "$1" -h -t all -j "$dsid" -O 'JobID:|,State:|,exit_code:|' 2>/dev/null | tr -d ' ' | cut -d'|' -f2,3; }
T=30 until_ok sh -c "[ \"\$(ibin/squeue -h -t all -j '$dsid' -O 'JobID:|,State:|,exit_code:|' 2>/dev/null | tr -d ' ' | cut -d'|' -f2,3)\" = 'FAILED|10' ]"
check_eq "ckpt death: the preempted job ${pvic:-?} ($dsid) FAILED of signal 9 in Slurm, of 10 through the interposer" \
	"$(dst squeue) $(dst ibin/squeue)" 'FAILED|9 FAILED|10'
ran_again "ckpt death: the victim was requeued as a preemption and ran again (attempt 1), not recorded failed" "${pvic:-pv1}"
grep -q "Slurm job $dsid FAILED, exit 0:10: died of the checkpoint signal before it could checkpoint: requeued" P.log
check "ckpt death: the log says why it was requeued" "$((! $?))" "$(grep "$dsid" P.log | tail -3)"
T=30 until_ok is_state sP pinf done
check_eq "ckpt death: the inference job ran" "$(jobstate sP pinf)" done
check "ckpt death: the run again is another Slurm job" "$([ -n "$dsid" ] && [ "$(sid_of sP "${pvic:-pv1}")" != "$dsid" ] && echo 1)"
cancel_left sP pv1 pv2
# 12b. The same, and slurmctld forgets the job at once (its squeue no
# longer lists it): what happened is read from sacct, which says FAILED
# of signal 10 as well.
touch ibin/forget_on
ckpt_round pv3 pv4 pinf2 forget
fsid=$(head -n 1 ibin/forget)
pvic=$(victim pv3 pv4)
ran_again "ckpt death, the job forgotten by slurmctld: requeued from sacct's record, ran again (attempt 1)" "${pvic:-pv3}"
grep -q "Slurm job $fsid FAILED, exit 0:10 (from sacct): died of the checkpoint signal before it could checkpoint: requeued" P.log
check "ckpt death, forgotten: the log says so" "$((! $?))" "$(grep "Slurm $fsid\|job $fsid" P.log | tail -3)"
cancel_left sP pv3 pv4
# 12c. The same, and the daemon is killed with -9 the moment the signal
# has gone (by the interposer, before its scancel returns): the restart
# finds the job it was checkpointing FAILED of the checkpoint signal and
# requeues it as well.
rm -f ibin/forget_on
touch ibin/kill_on
ckpt_round pv5 pv6 pinf3 killed
ksid=$(cut -d' ' -f1 ibin/killed 2>/dev/null)
check_eq "ckpt death, the daemon killed with the signal sent: the interposer killed daemon P" \
	"$(cut -d' ' -f2 ibin/killed 2>/dev/null)" "$(pid_of P)"
wait "$(pid_of P)" 2>/dev/null
start_daemon P
pvic=$(victim pv5 pv6)
ran_again "ckpt death across a kill -9: requeued after the restart, ran again (attempt 1)" "${pvic:-pv5}"
grep -q "Slurm job $ksid FAILED, exit 0:10.*: died of the checkpoint signal before it could checkpoint: requeued" P.log
check "ckpt death across a kill -9: the log says so" "$((! $?))" "$(grep "Slurm $ksid\|job $ksid" P.log | tail -3)"
T=30 until_ok is_state sP pinf3 done
check_eq "ckpt death across a kill -9: the inference job ran" "$(jobstate sP pinf3)" done
cancel_left sP pv5 pv6
stop_daemon P

# --- 13. a foreign job that takes a node between placement and start --------
# The sbatch interposer of daemon F, armed once: before hetlab's sbatch of
# a job placed on NODE goes through, a job of the site's own takes half of
# NODE and runs. Slurm then cannot start hetlab's job there; hetlab takes
# it back after start_timeout_s, and the hold of the site's job (short
# while the engine still gave those cores to hetlab's job) takes them as
# they free, so the job goes to the other node at once. (Without that, it
# was placed on NODE again, and again, each time until start_timeout_s,
# for as long as the site's job ran.)
mkdir -p fbin
for c in scontrol sinfo squeue sacct scancel; do ln -sf "$(command -v $c)" fbin/$c; done
cat >fbin/sbatch <<EOF
#!/bin/sh
node=
for a; do case \$a in --nodelist=*) node=\${a#--nodelist=} ;; esac; done
if [ -n "\$node" ] && [ -e "$D/fbin/arm" ]; then
	rm -f "$D/fbin/arm"
	fid=\$("$(command -v sbatch)" --parsable -p second -w "\$node" -N1 -c 2 --mem=500 -J sitejob2 --wrap 'sleep 40')
	i=0
	while [ "\$(squeue -h -j "\$fid" -o %T)" != RUNNING ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
	echo "\$fid \$node \$(squeue -h -j "\$fid" -o %T)" >"$D/fbin/foreign"
fi
exec "$(command -v sbatch)" "\$@"
EOF
chmod 755 fbin/sbatch
scn F 2 '["n5", "n6"]' >scnF.json
sed 's/scnA/scnF/; s/"sA"/"sF"/; s/"debug"/"second"/; s|"start_timeout_s": 5|&, "bindir": "'"$D"'/fbin"|' A.json >F.json
start_daemon F
touch fbin/arm
t_sub=$(date +%s)
job ftop batch 1 4 2000 2 | submit sF
T=40 until_ok is_state sF ftop done
t_done=$(date +%s)
read -r fsid fnode fst <fbin/foreign 2>/dev/null
check_eq "foreign top-up: the site's job took half of the node hetlab had placed on (${fnode:-?}) and ran" "${fst:-none}" RUNNING
check "foreign top-up: hetlab's job ran on the other node" \
	"$([ -n "${fnode:-}" ] && [ -s out/ftop.where ] && [ "$(awk '{print $3}' out/ftop.where)" != "$fnode" ] && echo 1)" \
	"where: $(cat out/ftop.where 2>/dev/null); the site's job on ${fnode:-?}"
check_eq "foreign top-up: taken back once, not placed on ${fnode:-?} again and again" \
	"$(q sF "SELECT count(*) FROM decision d JOIN jobs j ON j.id = d.job WHERE j.name = 'ftop' AND d.kind = 'requeue'")" 1
check "foreign top-up: it ran and ended while the site's job still ran ($((t_done - t_sub)) s after its submission)" \
	"$([ "$(jobstate sF ftop)" = done ] && [ "$(sstate "${fsid:-0}")" = RUNNING ] && echo 1)" \
	"hetlab's job $(jobstate sF ftop); the site's job ${fsid:-?}: $(sstate "${fsid:-0}")"
grep -q "node ${fnode:-?}: jobs not hetlab's hold 2 cores" F.log
check "foreign top-up: the log shows the site's hold" "$((! $?))" "$(grep 'hold' F.log | tail -3)"
stop_daemon F
[ -n "${fsid:-}" ] && scancel "$fsid"
T=20 until_ok sh -c "[ -z \"\$(squeue -h -p second -o %i)\" ]"

# --- 8-9. logs, metrics, replays -----------------------------------------------
check_eq "logs: every submission names its Slurm job" "$(grep -c 'Slurm job [0-9]* submitted on' A.log | awk '{print ($1 >= 20)}')" 1
passes=$(printf '%s\n' "$m" | awk '/^hetlab_scheduling_passes_total/ {print ($2 > 0)}')
check_eq "metrics: scheduling passes counted" "$passes" 1
for st in sA sB sC sU sP sF; do
	if out=$("$HETLAB" replay "$st" 2>&1); then ok "replay of $st makes the same decisions"
	else bad "replay of $st makes the same decisions" "$(printf '%s' "$out" | tail -n 8)"; fi
done
[ "$fail" -gt 0 ] && logs
echo "slurm trust: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" -eq 0 ]
