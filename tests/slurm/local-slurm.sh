#!/bin/sh
# A real four-node Slurm cluster on this host, all of its state under DIR.
#
#   sh tests/slurm/local-slurm.sh start DIR   # munged, slurmctld, slurmd n1..n4
#   . DIR/env                                 # SLURM_CONF for the client commands
#   sh tests/slurm/local-slurm.sh stop DIR    # kills exactly what start started
#
# The recipe (docs/slurm.md): a private munge key and socket, four slurmd on
# 127.0.0.1 ports 17001-17004 (`slurmd -N nK`), no cgroups, everything under
# DIR. Each node has 4 CPUs, 4000 MiB and two fake GPUs (GRES gpu:fake:2 on
# the device files DIR/fakedev/gpu0 and gpu1, made like /dev/null: jobs with
# --gres=gpu:N get CUDA_VISIBLE_DEVICES); finished jobs stay known to
# slurmctld for MinJobAge=600 s. Needs root and the Debian packages
# slurmctld slurmd slurm-client munge. start exits non-zero with a message
# when the daemons are not up within 30 s (then run stop: it is safe after
# any failure, and idempotent).
set -u

die() { echo "local-slurm: $*" >&2; exit 1; }

# Polls "$@" until it succeeds or the start's 30 s deadline ($END) passes.
poll() {
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -ge "$END" ] && return 1
		sleep 0.2
	done
}

idle_nodes() {
	[ "$(timeout 5 sinfo -h -t idle -o %D 2>/dev/null | head -n1)" = 4 ]
}

start() {
	D=$1
	END=$(( $(date +%s) + 30 ))
	[ "$(id -u)" = 0 ] || die "needs root"
	for c in munged slurmctld slurmd sbatch scontrol sinfo squeue; do
		command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge)"
	done
	mkdir -p "$D" || die "cannot create $D"
	D=$(cd "$D" && pwd)
	mkdir -p "$D/munge" "$D/etc" "$D/state" "$D/spool" "$D/run" "$D/log" "$D/tmp" "$D/fakedev"
	for g in 0 1; do
		[ -c "$D/fakedev/gpu$g" ] || mknod "$D/fakedev/gpu$g" c 1 3 || die "mknod $D/fakedev/gpu$g failed"
	done
	chmod 755 "$D" "$D/munge"
	head -c 1024 /dev/urandom >"$D/munge/munge.key"
	chmod 600 "$D/munge/munge.key"
	munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.socket" \
		--pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
		--seed-file="$D/munge/munge.seed" --force </dev/null >/dev/null 2>&1 ||
		die "munged did not start (see $D/log/munged.log)"
	poll test -S "$D/munge/munge.socket" || die "munged: no socket within 30 s"
	cat >"$D/etc/slurm.conf" <<EOF
ClusterName=hetlab
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket,cred_expire=10
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0,bf_interval=1
ReturnToService=2
SlurmdParameters=config_overrides
TmpFS=$D/tmp
MinJobAge=600
GresTypes=gpu
NodeName=n[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[17001-17004] CPUs=4 RealMemory=4000 Gres=gpu:fake:2 State=UNKNOWN
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
EOF
	cat >"$D/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=n[1-4] Name=gpu Type=fake File=$D/fakedev/gpu[0-1]
EOF
	echo "SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF" >"$D/env"
	SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF
	slurmctld -c -i </dev/null >>"$D/log/slurmctld.out" 2>&1 ||
		die "slurmctld did not start (see $D/log/slurmctld.log)"
	poll timeout 5 scontrol ping || die "slurmctld not answering within 30 s (see $D/log/slurmctld.log)"
	for n in 1 2 3 4; do
		slurmd -N n$n </dev/null >>"$D/log/slurmd.out" 2>&1 ||
			die "slurmd n$n did not start (see $D/log/slurmd-n$n.log)"
	done
	poll idle_nodes || die "nodes not idle within 30 s: $(sinfo -h 2>&1 | tr '\n' ' ')(see $D/log/)"
	echo "local-slurm: 4 nodes idle; . $D/env"
}

# Kills the process whose pid is in file $1, then waits for it (SIGKILL after 5 s).
kill_pidfile() {
	[ -s "$1" ] || return 0
	pid=$(cat "$1")
	case $pid in ''|*[!0-9]*) return 0 ;; esac
	kill "$pid" 2>/dev/null || return 0
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
	kill -9 "$pid" 2>/dev/null
	return 0
}

stop() {
	D=$1
	[ -d "$D" ] || return 0
	D=$(cd "$D" && pwd)
	SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF
	if [ -f "$D/run/slurmctld.pid" ] && [ -f "$D/etc/slurm.conf" ]; then
		timeout 5 scancel --user=root >/dev/null 2>&1
	fi
	for n in 1 2 3 4; do kill_pidfile "$D/run/slurmd-n$n.pid"; done
	kill_pidfile "$D/run/slurmctld.pid"
	kill_pidfile "$D/run/munged.pid"
	# Left-over slurmstepd or job processes of this cluster: those whose
	# environment carries this SLURM_CONF and that are a job step (a
	# SLURM_JOB_ID) or a slurmstepd; never by name alone, and never the
	# caller, which has SLURM_CONF too.
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}; p=${p%/environ}
		[ "$p" = $$ ] && continue
		env=$(tr '\0' '\n' 2>/dev/null <"$e") || continue
		printf '%s\n' "$env" | grep -qxF "SLURM_CONF=$SLURM_CONF" || continue
		if printf '%s\n' "$env" | grep -q '^SLURM_JOB_ID=' ||
			[ "$(cat /proc/$p/comm 2>/dev/null)" = slurmstepd ]; then
			kill -9 "$p" 2>/dev/null
		fi
	done
	return 0
}

case ${1:-} in
start) [ $# = 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start|stop DIR" ;;
esac
