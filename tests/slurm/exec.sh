#!/bin/sh
# The Slurm executor (live/exec_slurm) against a real local Slurm cluster
# (tests/slurm/local-slurm.sh: n1..n6, 4 CPUs and 2 fake GPUs each) started
# in a temporary directory and always stopped on exit.
#
#   sh tests/slurm/exec.sh build/hetlab      # BUILD/libhetlab.a must be built
#
# Compiles tests/slurm/exec-driver.c against BUILD/libhetlab.a and drives the
# executor through it: held jobs stay held; jobs run exactly on the nodes
# given; a checkpoint signal reaches the job, requeue-hold parks it and it
# runs again elsewhere; srun steps of a two-node job get the job's
# environment in both export modes; drain with a reason and resume; exit
# codes read back.
# Unlike run.sh this never skips: a cluster that does not start is a failure
# (exit 1) with the daemons' log tails. Prints "slurm exec: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
BUILD=$(dirname "$HETLAB")
LIB=$BUILD/libhetlab.a
t0=$(date +%s)

die() { echo "FAIL slurm exec: $*"; exit 1; }
[ -f "$LIB" ] || die "$LIB not found (make BUILD=$BUILD first)"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge)"
done

D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-sx-XXXXXX") || die "mktemp failed"
C=$D/cluster
W=$D/work
DRV=$D/exec-driver
stopped=0
cleanup() {
	[ $stopped = 1 ] || sh "$HERE/local-slurm.sh" stop "$C"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

logs() {
	for f in "$C"/log/*.log "$C"/log/*.out; do
		[ -f "$f" ] || continue
		echo "  --- ${f##*/}"
		tail -n 15 "$f" | sed 's/^/  | /'
	done
}

# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O1 -g -I"$ROOT" -o "$DRV" "$HERE/exec-driver.c" "$LIB" \
	$(pkg-config --libs jansson) -lm 2>"$D/cc.err" || { cat "$D/cc.err"; die "cannot build the driver"; }

if ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	logs
	die "the cluster did not start"
fi
. "$C/env"
mkdir -p "$W"
SX_WORKDIR=$W; export SX_WORKDIR
echo "$msg ($(($(date +%s) - t0)) s)"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
drv() { "$DRV" "$@" </dev/null; }
# The state word of job $1 ("RUNNING", "HELD", ...).
state() { drv info "$1" | cut -d' ' -f2; }
field() { drv info "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
out() { cat "$W/hetlab-$1-$2.out" 2>/dev/null; }
# Polls "$@" every 0.2 s for up to $T s (default 20).
until_ok() {
	end=$(( $(date +%s) + ${T:-20} ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.2
	done
}
has_out() { out "$1" "$2" | grep -q "$3"; }

# 1. Four jobs submitted held. Job 3 traps USR1 (the checkpoint signal);
# job 4 prints its awkward arguments and exits 3.
j1=$(drv submit 1 1 1 0 -- sh -c 'echo "on $SLURMD_NODENAME"; sleep 3') || bad "submit 1"
j2=$(drv submit 2 2 1 1 -- sh -c 'echo "nodes $SLURM_JOB_NODELIST gpus=$CUDA_VISIBLE_DEVICES"; sleep 3') || bad "submit 2"
j3=$(drv submit 3 1 1 0 -- sh -c 'trap "echo checkpoint-\${SLURM_RESTART_COUNT:-0}" USR1
echo "start ${SLURM_RESTART_COUNT:-0} $SLURMD_NODENAME"
i=0; while [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done') || bad "submit 3"
j4=$(drv submit 4 1 1 0 -- sh -c 'printf "<%s>\n" "$@"; exit 3' sh 'a b' "it's" '$(touch pwned)' '') || bad "submit 4"
[ -n "${j1:-}" ] && [ -n "${j2:-}" ] && [ -n "${j3:-}" ] && [ -n "${j4:-}" ] || { logs; die "submission failed"; }
ok "submitted held: $j1 $j2 $j3 $j4"

# 2. Slurm starts none of them by itself (5 s).
held=1
for i in 1 2 3 4 5; do
	for j in $j1 $j2 $j3 $j4; do [ "$(state "$j")" = HELD ] || held=0; done
	sleep 1
done
if [ $held = 1 ]; then ok "all four still HELD after 5 s"; else bad "a held job left HELD: $(drv jobs $j1 $j2 $j3 $j4 | tr '\n' ';')"; fi

# 3. Job 1 on n3, job 2 on n1,n2: running exactly there.
drv start "$j1" n3 || bad "start $j1 n3"
drv start "$j2" n1,n2 || bad "start $j2 n1,n2"
if until_ok has_out 1 "$j1" "on n3" && [ "$(field "$j1" nodes)" = n3 ]; then
	ok "job 1 runs on n3 ($(out 1 "$j1"))"
else
	bad "job 1 not on n3: $(drv info "$j1") out: $(out 1 "$j1")"
fi
if until_ok has_out 2 "$j2" "nodes n\[1-2\]" && [ "$(field "$j2" nodes)" = "n[1-2]" ]; then
	ok "job 2 runs on n1,n2 ($(out 2 "$j2"))"
else
	bad "job 2 not on n1,n2: $(drv info "$j2") out: $(out 2 "$j2")"
fi

# 4. Job 3: start on n3, checkpoint signal, requeue held, start on n4.
drv start "$j3" n3 || bad "start $j3 n3"
if until_ok has_out 3 "$j3" "start 0 n3"; then ok "job 3 runs on n3"; else bad "job 3 did not start: $(drv info "$j3")"; fi
drv signal "$j3" 10 || bad "signal $j3 USR1"
if until_ok has_out 3 "$j3" "checkpoint-0"; then ok "USR1 reached job 3's trap (checkpoint-0 in its output)"; else bad "no checkpoint marker: $(out 3 "$j3")"; fi
[ "$(state "$j3")" = RUNNING ] || bad "job 3 not running after the signal: $(drv info "$j3")"
drv requeuehold "$j3" || bad "requeuehold $j3"
if drv wait "$j3" HELD 20 >"$D/w3" && [ "$(field "$j3" restarts)" = 1 ] && [ "$(field "$j3" held)" = 1 ]; then
	sleep 2
	if [ "$(state "$j3")" = HELD ]; then ok "job 3 requeued: pending, held, restarts=1, stays so"; else bad "job 3 left HELD: $(drv info "$j3")"; fi
else
	bad "job 3 not held after requeuehold: $(cat "$D/w3")"
fi
drv start "$j3" n4 || bad "start $j3 n4"
if until_ok has_out 3 "$j3" "start 1 n4" && [ "$(state "$j3")" = RUNNING ] && [ "$(field "$j3" nodes)" = n4 ]; then
	ok "job 3 runs again on n4 ($(drv info "$j3" | cut -d' ' -f2-))"
else
	bad "job 3 not running on n4: $(drv info "$j3") out: $(out 3 "$j3")"
fi

# 5. Job 4 exits 3: FAILED, exit 3, its arguments intact.
drv start "$j4" n2 || bad "start $j4 n2"
if drv wait "$j4" FAILED 20 >"$D/w4" && [ "$(field "$j4" exit)" = 3 ] && [ "$(field "$j4" sig)" = 0 ]; then
	ok "job 4: FAILED exit 3"
else
	bad "job 4: $(cat "$D/w4")"
fi
want=$(printf '<a b>\n<it'"'"'s>\n<$(touch pwned)>\n<>')
if [ "$(out 4 "$j4")" = "$want" ] && [ ! -e "$W/pwned" ]; then ok "job 4's argv reached exec unchanged"; else bad "job 4 output: $(out 4 "$j4")"; fi

# 6. Jobs 1 and 2 finish: COMPLETED exit 0.
for j in $j1 $j2; do
	if drv wait "$j" COMPLETED 20 >"$D/w" && [ "$(field "$j" exit)" = 0 ]; then ok "job $j: COMPLETED exit 0"; else bad "job $j: $(cat "$D/w")"; fi
done

# 6b. srun inside a two-node job, in both export modes (slurm.export):
# each step runs on its node with the job's environment (PATH, HETLAB_*,
# the job's env), and `srun hostname` finds its program. Under "login"
# (--export=NONE) Slurm sets SLURM_EXPORT_ENV=NONE in the job, which srun
# reads as its own --export; the batch script sets it back to ALL.
k=5
for mode in login minimal; do
	js=$(SX_EXPORT=$mode SX_JOBENV="HETLAB_JOB_ID=$k
MYVAR=a b" drv submit $k 2 1 0 --at n1,n2 -- sh -c 'P=$PATH; export P
srun sh -c "echo step \$SLURMD_NODENAME path=\$([ -n \"\$PATH\" ] && [ \"\$PATH\" = \"\$P\" ] && echo same) job=\$HETLAB_JOB_ID attempt=\$HETLAB_ATTEMPT nodes=\$HETLAB_NODES my=\$MYVAR" | sort
srun hostname >/dev/null && echo hostname ok') || bad "submit $k ($mode)"
	want="step n1 path=same job=$k attempt=0 nodes=n1,n2 my=a b
step n2 path=same job=$k attempt=0 nodes=n1,n2 my=a b
hostname ok"
	if [ -n "${js:-}" ] && T=60 until_ok has_out $k "$js" "hostname ok" && [ "$(out $k "$js")" = "$want" ]; then
		ok "job $k ($mode): srun steps on n1 and n2 with the job's environment"
	else
		bad "job $k ($mode): srun steps: $(drv info "${js:-0}") out: $(out $k "${js:-0}" | tr '\n' ';')"
	fi
	[ -n "${js:-}" ] && { drv wait "$js" COMPLETED 30 >/dev/null || bad "job $k ($mode) not COMPLETED: $(drv info "$js")"; }
	k=$((k + 1))
done

# 7. Drain n2 with a reason, then resume it.
drv drain n2 "hetlab test: fan 'loud'" || bad "drain n2"
nodeline() { drv nodes | grep "^$1 "; }
if until_ok sh -c "'$DRV' nodes | grep -q '^n2 .*drain=1 .*reason=hetlab test: fan .loud.$'"; then
	ok "n2 drained: $(nodeline n2)"
else
	bad "n2 not drained: $(nodeline n2)"
fi
drv resume n2 || bad "resume n2"
if until_ok sh -c "'$DRV' nodes | grep -q '^n2 idle drain=0 down=0 idle=1 .*reason=-$'"; then
	ok "n2 resumed: $(nodeline n2)"
else
	bad "n2 not idle after resume: $(nodeline n2)"
fi

# 8. The four jobs read back by id (squeue -j), with their keys; job 3 cancelled.
n=$(drv jobs $j1 $j2 $j3 $j4 | grep -c ' key=[1-4] ')
if [ "$n" = 4 ]; then ok "sx_jobs_by_id lists the 4 jobs"; else bad "sx_jobs_by_id: $(drv jobs $j1 $j2 $j3 $j4 | tr '\n' ';')"; fi
drv cancel "$j3" || bad "cancel $j3"
if drv wait "$j3" CANCELLED 20 >"$D/w3"; then ok "job 3: CANCELLED ($(cut -d' ' -f3- "$D/w3"))"; else bad "job 3 not cancelled: $(cat "$D/w3")"; fi
if [ "$(state 999999)" = GONE ]; then ok "an unknown job is GONE"; else bad "job 999999: $(drv info 999999)"; fi

[ $fail = 0 ] || { echo "  --- job outputs"; for f in "$W"/*.out; do [ -f "$f" ] && sed "s|^|  | ${f##*/}: |" "$f"; done; logs; }

# 9. stop leaves none of the daemons it started.
pids=$(cat "$C"/run/*.pid 2>/dev/null)
sh "$HERE/local-slurm.sh" stop "$C"
stopped=1
left=
for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
if [ -n "$pids" ] && [ -z "$left" ]; then ok "stop: all daemons gone"; else bad "stop: still running:${left:- (no pid files)}"; fi

echo "slurm exec: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ $fail = 0 ]
