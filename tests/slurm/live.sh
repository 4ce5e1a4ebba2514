#!/bin/sh
# `hetlab live --executor slurm` against a real local Slurm cluster
# (tests/slurm/local-slurm.sh: n1..n4, 4 CPUs and 2 fake GPUs each) started
# in a temporary directory and always stopped on exit.
#
#   sh tests/slurm/live.sh build/hetlab
#
# The tiered policy places the jobs; the checks read Slurm back:
#   - the health monitor drains n4 when its probe reports a GPU error
#     (sinfo shows it drained, with the reason);
#   - two training jobs run exactly on the nodes the policy chose;
#   - an inference job that finds no free node preempts one: the victim
#     gets the checkpoint signal, is requeued held, the inference job runs
#     on the nodes the victim left, and the victim runs again (attempt 1)
#     and finishes;
#   - a node set DOWN in Slurm is taken out of service until it is back;
#   - a slurmctld restart does not make hetlab's own GPUs a hold of jobs
#     not hetlab's (Slurm's gres_used is wrong until the slurmd registers);
#   - every job ends done, and the replay of the recording makes the same
#     decisions.
# Unlike run.sh this never skips: a cluster that does not start is a
# failure (exit 1) with the daemons' log tails. Prints "slurm live: N
# passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
t0=$(date +%s)
die() { echo "FAIL slurm live: $*"; exit 1; }
[ -x "$HETLAB" ] || die "$HETLAB not found"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel sqlite3; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge sqlite3)"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-sl-XXXXXX") || die "mktemp failed"
C=$D/cluster
DAEMON=
cleanup() {
	[ -n "$DAEMON" ] && kill -9 "$DAEMON" 2>/dev/null
	sh "$HERE/local-slurm.sh" stop "$C" >/dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
logs() {
	for f in "$C"/log/*.log "$D"/daemon.log; do
		[ -f "$f" ] || continue
		echo "  --- ${f##*/}"
		tail -n 20 "$f" | sed 's/^/  | /'
	done
}
if ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	logs
	die "the cluster did not start"
fi
. "$C/env"
export SLURM_CONF
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   slurm live: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL slurm live: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
q() { sqlite3 -batch -noheader "$D/st/state.db" "$1"; }
cd "$D" || exit 1
mkdir -p readings out

cat >scn.json <<'EOF'
{
  "name": "slurm-live",
  "seed": 1,
  "policy": "tiered",
  "policy_params": { "preempt_exempt_s": 0 },
  "node_types": [ { "name": "gpu2", "gpu": "L40S-48GB", "gpus": 2, "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 20, "nodes": [ { "type": "gpu2", "count": 4, "names": ["n1", "n2", "n3", "n4"] } ] } ],
  "checkpoint": { "training": { "grace_s": 5 } },
  "health": { "min_gpu_speed": 0.5 }
}
EOF
cat >live.json <<'EOF'
{ "scenario": "scn.json", "executor": "slurm", "state_dir": "st", "tick_s": 0.2,
  "probe_every_s": 0.5, "record_every_s": 30, "probes": "file:readings/%n.json", "xid_repair_s": 3600 }
EOF
for n in n1 n2 n3 n4; do printf '{"power_w": 400, "temp_c": 50, "gpu_errors": 0}\n' >readings/$n.json; done
# n4 reports a GPU error (XID) once.
printf '{"power_w": 400, "temp_c": 50, "gpu_errors": 1, "bad_gpu": 0}\n' >readings/n4.json

# A job line: CLASS NODES SECONDS_FIRST SECONDS_LATER. It logs where Slurm
# ran it and where hetlab meant it to run, checkpoints on SIGUSR1 (exits),
# and runs shorter after a requeue.
job() {
	printf '{"name": "%s", "class": "%s", "req": {"nodes": %s, "cores": 4, "gpus": 2}, "argv": ["sh", "-c", "echo $HETLAB_JOB_ID $HETLAB_ATTEMPT $(scontrol show hostnames $SLURM_JOB_NODELIST | paste -sd, -) $HETLAB_NODES >> %s/out/where; trap '"'"'echo $HETLAB_JOB_ID $HETLAB_ATTEMPT >> %s/out/ckpt; exit 0'"'"' USR1; if [ $HETLAB_ATTEMPT = 0 ]; then n=%s; else n=%s; fi; i=0; while [ $i -lt $n ]; do sleep 0.2; i=$((i+1)); done"]}\n' \
		"$1" "$2" "$3" "$D" "$D" "$(($4 * 5))" "$(($5 * 5))"
}

"$HETLAB" live --config live.json >daemon.log 2>&1 &
DAEMON=$!
# The drain reaches Slurm.
drained=
for i in $(seq 1 50); do
	s=$(sinfo -h -n n4 -o '%T|%E' 2>/dev/null)
	case $s in drain*) drained=$s; break ;; esac
	sleep 0.2
done
printf '{"power_w": 400, "temp_c": 50, "gpu_errors": 0}\n' >readings/n4.json
case $drained in
drain*"GPU 0 fell off the bus"*) ok "the health monitor drained n4 in Slurm ($drained)" ;;
*) bad "the health monitor drained n4 in Slurm" "sinfo: '$drained'" ;;
esac

{ job train-a training 2 25 2; job train-b training 1 25 2; } | "$HETLAB" submit --state st - >/dev/null
# Both run before the inference job comes.
for i in $(seq 1 100); do
	[ "$(q "SELECT count(*) FROM jobs WHERE state = 'running'")" = 2 ] && [ "$(cat out/where 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.2
done
job serve inference 1 4 4 | "$HETLAB" submit --state st - >/dev/null

# Wait for the end (or 120 s).
for i in $(seq 1 600); do
	[ "$(q "SELECT count(*) FROM jobs WHERE state = 'done'")" = 3 ] && break
	sleep 0.2
done
# n3 goes DOWN in Slurm (an admin, or slurmd lost): hetlab takes it out of
# service, so a three-node job waits; when n3 is back it runs there.
scontrol update NodeName=n3 State=DOWN Reason=maintenance
for i in $(seq 1 50); do grep -q 'fault on node n3' daemon.log && break; sleep 0.2; done
job wide batch 3 1 1 | "$HETLAB" submit --state st - >/dev/null
sleep 3
check_eq "a node DOWN in Slurm is out of service: the 3-node job waits" \
	"$(q "SELECT state FROM jobs WHERE name = 'wide'")" pending
scontrol update NodeName=n3 State=RESUME
for i in $(seq 1 150); do
	[ "$(q "SELECT state FROM jobs WHERE name = 'wide'")" = done ] && break
	sleep 0.2
done
check_eq "n3 back up: the 3-node job ran on n1,n2,n3" "$(awk '$1 == 3 {print $3}' out/where)" "n1,n2,n3"
# slurmctld restarts while a two-node job of hetlab's runs with both GPUs
# of each node: until their slurmds register again (about 5 s) Slurm's
# gres_used shows 4 GPUs on each (a node's jobs' GPUs are counted wrong);
# none of it is a hold of jobs not hetlab's.
job steady batch 2 14 14 | "$HETLAB" submit --state st - >/dev/null
for i in $(seq 1 100); do
	[ "$(q "SELECT state FROM jobs WHERE name = 'steady'")" = running ] && awk '$1 == 4' out/where | grep -q . && break
	sleep 0.2
done
n0=$(wc -l <daemon.log)
sh "$HERE/local-slurm.sh" restart-ctld "$C" >/dev/null 2>&1
sleep 8
check_eq "slurmctld restarted: hetlab's own GPUs are never held by jobs not hetlab's" \
	"$(tail -n +$((n0 + 1)) daemon.log | grep "jobs not hetlab's hold" | sed 's/.*\] //' | tr '\n' ';')" ""
for i in $(seq 1 150); do
	[ "$(q "SELECT state FROM jobs WHERE name = 'steady'")" = done ] && break
	sleep 0.2
done
kill -TERM "$DAEMON"
wait "$DAEMON"
DAEMON=

check_eq "every job done" "$(q "SELECT group_concat(name || ':' || state, ' ') FROM jobs")" "train-a:done train-b:done serve:done wide:done steady:done"
# Slurm ran each attempt exactly where the policy put it.
mism=$(awk '$3 != $4' out/where)
check_eq "each attempt ran on the nodes the policy chose ($(wc -l <out/where) attempts)" "$mism" ""
pl=$(q "SELECT job, detail FROM decision WHERE kind = 'start'" | sed 's/:[^,]*//g')
check_eq "the start decisions name Slurm's nodes" "$(printf '%s\n' "$pl" | sort)" \
	"$(awk '{print $1 "|" $4}' out/where | sort)"
check_eq "one preemption and one requeue" \
	"$(q "SELECT sum(kind = 'preempt') || ',' || sum(kind = 'requeue') FROM decision")" "1,1"
victim=$(q "SELECT job FROM decision WHERE kind = 'preempt'")
check_eq "the victim checkpointed on the signal" "$(cat out/ckpt 2>/dev/null)" "$victim 0"
check_eq "the victim ran again as attempt 1" "$(q "SELECT attempt FROM jobs WHERE id = '$victim'")" 1
vnodes=$(awk -v v="$victim" '$1 == v && $2 == 0 {print $3}' out/where)
inodes=$(awk '$1 == 2 {print $3}' out/where)
case ",$vnodes," in *",$inodes,"*) ok "the inference job ran on a node the victim left ($inodes)" ;;
*) bad "the inference job ran on a node the victim left" "victim $vnodes, inference $inodes" ;; esac
if out=$("$HETLAB" replay st 2>&1); then ok "replay makes the same decisions"
else bad "replay makes the same decisions" "$(printf '%s' "$out" | tail -n 8)"; fi
[ "$fail" -gt 0 ] && logs
echo "slurm live: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" -eq 0 ]
