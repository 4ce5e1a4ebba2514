#!/bin/sh
# Ended jobs leave the engine's tables under the Slurm executor (LIVE.json
# keep_ended, max_jobs; docs/live.md "Ended jobs leave the engine"),
# against a real local Slurm cluster (tests/slurm/local-slurm.sh, with
# accounting) started in a temporary directory and always stopped on exit.
#
#   sh tests/slurm/compact.sh build/hetlab
#
# Eight short jobs through an engine that holds three at once, every ended
# job dropped at once (keep_ended 1), the first job the longest (it
# outlives the ones after it: the ids left are not a prefix), the daemon
# killed with kill -9 half-way and restarted. Checks: every job ran once,
# under its own id (HETLAB_JOB_ID, its Slurm job's name hetlab-S8-ID and
# sacct's one COMPLETED record of that name); the jobs table has all eight
# done, each with its Slurm id as ref; each job's xref row is that Slurm
# job, closed; the restart held at most three jobs; a cancel of a job that
# has left changes nothing; no Slurm job of the state is left; the replay
# makes the same decisions. Prints "slurm compact: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
t0=$(date +%s)
die() { echo "FAIL slurm compact: $*"; exit 1; }
[ -x "$HETLAB" ] || die "$HETLAB not found"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue scontrol sinfo scancel sacct sqlite3; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server sqlite3)"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-cmp-XXXXXX") || die "mktemp failed"
C=$D/cluster
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	sh "$HERE/local-slurm.sh" stop "$C" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
logs() {
	echo "  --- squeue; hetlab queue"
	{ squeue -h -o '%i %j %T %R' 2>&1; [ -f "$D/st/state.db" ] && "$HETLAB" queue --state "$D/st" --all 2>&1; } |
		head -n 30 | sed 's/^/  | /'
	for f in "$C"/log/slurmctld.log "$D"/daemon.log; do
		[ -f "$f" ] || continue
		echo "  --- ${f##*/}"
		tail -n 30 "$f" | sed 's/^/  | /'
	done
}
if ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	logs
	die "the cluster did not start"
fi
. "$C/env"
export SLURM_CONF
NAME="slurm compact"
. "$HERE/testlib.sh"
q() { sqlite3 -batch -noheader "$D/st/state.db" "$1" 2>/dev/null; }
cd "$D" || exit 1
mkdir -p out

cat >scn.json <<'EOF'
{
  "name": "slurm-compact", "seed": 1, "policy": "easy",
  "node_types": [ { "name": "gpu2", "gpu": "L40S-48GB", "gpus": 2, "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 20, "nodes": [ { "type": "gpu2", "count": 4, "names": ["n1", "n2", "n3", "n4"] } ] } ]
}
EOF
cat >live.json <<'EOF'
{ "scenario": "scn.json", "executor": "slurm", "state_dir": "st", "tick_s": 0.2, "probe_every_s": 1, "probes": "none",
  "results_every_s": 0, "keep_ended": 1, "max_jobs": 3,
  "slurm": { "partition": ["debug"], "gres_types": { "L40S-48GB": "fake" }, "start_timeout_s": 20 } }
EOF
# A job of SECONDS: it logs "ID SLURM_JOB_ID SLURM_JOB_NAME" at each run.
job() {
	printf '{"name": "c%s", "class": "batch", "req": {"nodes": 1, "cores": 1, "mem_mib": 300}, "argv": ["sh", "-c", "echo $HETLAB_JOB_ID $SLURM_JOB_ID $SLURM_JOB_NAME >> %s/out/runs; sleep %s"]}\n' \
		"$1" "$D" "$2"
}
{ job 0 12; for i in 1 2 3 4 5 6 7; do job $i 2; done; } >jobs.jsonl

"$HETLAB" live --config live.json >>daemon.log 2>&1 &
DPID=$!
T=30 until_ok grep -q 'executor, policy' daemon.log || bad "the daemon started" "$(tail -n 5 daemon.log)"
S8=$(q "SELECT substr(value, 1, 8) FROM meta WHERE key = 'state_id'")
"$HETLAB" submit --state st jobs.jsonl >/dev/null || bad "submit" "$("$HETLAB" submit --state st jobs.jsonl 2>&1 | tail -3)"
# Killed once four have ended (more than the engine holds): job 0 still runs.
T=90 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader '$D/st/state.db' \"SELECT count(*) FROM jobs WHERE state = 'done'\" 2>/dev/null)\" -ge 4 ]" ||
	bad "four jobs done before the kill" "$(q "SELECT group_concat(id || ':' || state, ' ') FROM jobs")"
kill -9 "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
DPID=
echo "     kill -9 at $(( $(date +%s) - t0 )) s: $(q "SELECT group_concat(id || ':' || state, ' ') FROM jobs")"
# A cancel of job 1, which has ended and left the engine, queued while the daemon is down.
"$HETLAB" cancel --state st 1 >/dev/null 2>&1
timeout 180 "$HETLAB" live --config live.json --exit-when-idle >>daemon.log 2>&1
check_eq "the restarted daemon exits when idle" $? 0

check_eq "every job done, under its own id" \
	"$(q "SELECT group_concat(id || ':' || state, ' ') FROM (SELECT * FROM jobs ORDER BY id)")" \
	"0:done 1:done 2:done 3:done 4:done 5:done 6:done 7:done"
check_eq "every job ran once, as its own id, in its own Slurm job (hetlab-$S8-ID)" \
	"$(awk -v s="hetlab-$S8-" '{ print $1 ":" ($3 == s $1 ? "named" : $3) }' out/runs | sort -n | tr '\n' ' ')" \
	"0:named 1:named 2:named 3:named 4:named 5:named 6:named 7:named "
names=$(awk -v s="$S8" 'BEGIN { for (i = 0; i < 8; i++) printf "%shetlab-%s-%d", i ? "," : "", s, i }')
acct() { sacct -n -P -X -D -S now-1hours --name="$names" --format=JobName,JobIDRaw,State 2>/dev/null | sort -t- -k3 -n; }
T=30 until_ok sh -c "[ \"\$(sacct -n -P -X -S now-1hours --name='$names' --format=State 2>/dev/null | grep -c COMPLETED)\" -ge 8 ]"
acct >acct.txt
check_eq "sacct: one COMPLETED Slurm job per hetlab job" \
	"$(awk -F'|' '{ split($1, a, "-"); print a[3] ":" $3 }' acct.txt | tr '\n' ' ')" \
	"0:COMPLETED 1:COMPLETED 2:COMPLETED 3:COMPLETED 4:COMPLETED 5:COMPLETED 6:COMPLETED 7:COMPLETED "
check_eq "each job ran in the Slurm job sacct has for its name" \
	"$(awk '{ print $1 ":" $2 }' out/runs | sort -n | tr '\n' ' ')" \
	"$(awk -F'|' '{ split($1, a, "-"); print a[3] ":" $2 }' acct.txt | tr '\n' ' ')"
check_eq "xref: each job's one Slurm job, closed, and its ref in the jobs table" \
	"$(q "SELECT group_concat(x.job || ':' || x.sid || ':' || x.open || ':' || coalesce(j.ref, ''), ' ') FROM (SELECT * FROM xref ORDER BY job) x JOIN jobs j ON j.id = x.job")" \
	"$(awk -F'|' '{ split($1, a, "-"); printf "%s%s:%s:0:%s", (NR > 1 ? " " : ""), a[3], $2, $2 }' acct.txt)"
rec=$(sed -n 's/.*; \([0-9]*\) jobs recovered.*/\1/p' daemon.log | tail -n 1)
check "the restart held at most three jobs (max_jobs; it held ${rec:-?})" "$([ -n "$rec" ] && [ "$rec" -le 3 ] && echo 1)"
check_eq "the cancel of a job that had left was taken and changed nothing" \
	"$(q "SELECT count(*) FROM rec WHERE kind = 'cancel' AND job = 1"),$(q "SELECT state || ':' || coalesce(reason, '') FROM jobs WHERE id = 1")" "1,done:"
check_eq "no Slurm job of this state is left in the queue" \
	"$(squeue -h -o %j 2>/dev/null | grep -c "^hetlab-$S8-")" 0
if out=$("$HETLAB" replay st 2>&1); then ok "replay makes the same decisions"
else bad "replay makes the same decisions" "$(printf '%s' "$out" | tail -n 8)"; fi
[ "$fail" -gt 0 ] && logs
summary
