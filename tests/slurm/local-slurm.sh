#!/bin/sh
# A real Slurm cluster on this host, with accounting, all of its state under
# DIR.
#
#   sh tests/slurm/local-slurm.sh start DIR   # munged, mariadbd + slurmdbd, slurmctld, slurmd n1..n6
#   . DIR/env                                 # SLURM_CONF for the client commands
#   sh tests/slurm/local-slurm.sh stop DIR    # kills exactly what start started
#   sh tests/slurm/local-slurm.sh stop-ctld DIR | start-ctld DIR | restart-ctld DIR
#                                             # slurmctld alone (its state is kept)
#
# The recipe (docs/slurm.md): a private munge key and socket; MariaDB on a
# private socket and 127.0.0.1:16830 with slurmdbd on 16819, so that sacct
# works (LOCAL_SLURM_ACCT=0 leaves both out); six slurmd on 127.0.0.1
# ports 17001-17006 (`slurmd -N nK`); no cgroups; everything under DIR.
# Each node has 4 CPUs (LOCAL_SLURM_CPUS), 4000 MiB and two fake GPUs (GRES gpu:fake:2 on the
# device files DIR/fakedev/gpu0 and gpu1, made like /dev/null: jobs with
# --gres=gpu:N get CUDA_VISIBLE_DEVICES). Partitions: debug (n1-n4, the
# default) and second (n5-n6). Slurm 22.05's defaults otherwise, as a site
# has them: SelectTypeParameters=CR_Core_Memory without DefMemPerNode (a
# job that gives no --mem gets a whole node's memory; LOCAL_SLURM_SELECT
# overrides), ReturnToService=2, MinJobAge=300 (LOCAL_SLURM_MINJOBAGE).
# Accounts t0, t1, t2 and proj-a and QOS normal and hi exist, and every
# user may use them. A caller may give its own scheduling settings:
# LOCAL_SLURM_CONF_EXTRA holds slurm.conf lines that replace the lines of
# the same keys (one PartitionName or NodeName line replaces all of that
# key) and are added at the end; LOCAL_SLURM_SACCTMGR holds lines of
# sacctmgr arguments ("add qos high Priority=100 Preempt=low"), each run
# as `sacctmgr -i LINE` after the default accounts; LOCAL_SLURM_MEM sets
# the nodes' RealMemory; LOCAL_SLURM_PORT_OFFSET adds to every port (two
# clusters on one host need offsets apart by 200 or more). start writes slurmctld's start time (Unix
# seconds) into DIR/ctld-start. Needs
# root and the Debian packages slurmctld slurmd slurm-client munge (and
# slurmdbd mariadb-server for accounting). start exits non-zero with a
# message when the daemons are not up within 60 s (then run stop: it is
# safe after any failure, and idempotent).
set -u

NODES=6
PO=${LOCAL_SLURM_PORT_OFFSET:-0}
case $PO in ''|*[!0-9]*) echo "local-slurm: LOCAL_SLURM_PORT_OFFSET: expected a number, got '$PO'" >&2; exit 1 ;; esac
die() { echo "local-slurm: $*" >&2; exit 1; }

# Polls "$@" until it succeeds or the deadline ($END) passes.
poll() {
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -ge "$END" ] && return 1
		sleep 0.2
	done
}

idle_nodes() {
	[ "$(timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" = $NODES ]
}

acct_on() { [ "${LOCAL_SLURM_ACCT:-1}" = 1 ]; }

sql() { mariadb --no-defaults -S "$D/run/db.sock" -uroot -e "$1"; }

start_db() {
	command -v mariadbd >/dev/null 2>&1 && command -v slurmdbd >/dev/null 2>&1 ||
		die "mariadbd or slurmdbd not found (apt-get install mariadb-server slurmdbd; or LOCAL_SLURM_ACCT=0)"
	mkdir -p "$D/db"
	if [ ! -d "$D/db/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$D/db" --user=root \
			--auth-root-authentication-method=normal --skip-test-db >"$D/log/db-install.log" 2>&1 ||
			die "mariadb-install-db failed (see $D/log/db-install.log)"
	fi
	mariadbd --no-defaults --datadir="$D/db" --user=root --socket="$D/run/db.sock" --port=$((16830 + PO)) \
		--bind-address=127.0.0.1 --pid-file="$D/run/mariadbd.pid" --log-error="$D/log/mariadbd.log" \
		--skip-name-resolve --innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=0 \
		</dev/null >/dev/null 2>&1 &
	poll sql 'SELECT 1' || die "mariadbd not answering within 60 s (see $D/log/mariadbd.log)"
	sql "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'hetlab-test';
	     GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || die "cannot create the database user"
	cat >"$D/etc/slurmdbd.conf" <<EOC
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((16819 + PO))
SlurmUser=root
LogFile=$D/log/slurmdbd.log
PidFile=$D/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((16830 + PO))
StorageUser=slurm
StoragePass=hetlab-test
StorageLoc=slurm_acct_db
EOC
	chmod 600 "$D/etc/slurmdbd.conf"
	slurmdbd </dev/null >>"$D/log/slurmdbd.out" 2>&1 ||
		die "slurmdbd did not start (see $D/log/slurmdbd.log)"
	poll timeout 5 sacctmgr -n -i show cluster || die "slurmdbd not answering within 60 s (see $D/log/slurmdbd.log)"
	timeout 10 sacctmgr -n -P show cluster format=cluster | grep -qx hetlab ||
		timeout 10 sacctmgr -i add cluster hetlab >/dev/null || die "sacctmgr add cluster failed"
	timeout 10 sacctmgr -i add account t0,t1,t2,proj-a cluster=hetlab >/dev/null 2>&1
	timeout 10 sacctmgr -i add qos hi >/dev/null 2>&1
	users="root nobody $(awk -F: '$3 >= 1000 && $3 < 65534 {print $1}' /etc/passwd)"
	timeout 10 sacctmgr -i add user $(echo $users | tr ' ' ',') account=t0,t1,t2,proj-a \
		cluster=hetlab >/dev/null 2>&1
	timeout 10 sacctmgr -i modify user where name=$(echo $users | tr ' ' ',') set qos=normal,hi >/dev/null 2>&1
	# The caller's set-up, one sacctmgr command a line.
	printf '%s\n' "${LOCAL_SLURM_SACCTMGR:-}" | while IFS= read -r l; do
		[ -n "$l" ] || continue
		# shellcheck disable=SC2086 # a line of sacctmgr arguments, split as a shell would
		timeout 10 sacctmgr -i $l >>"$D/log/sacctmgr.log" 2>&1 || die "sacctmgr $l failed (see $D/log/sacctmgr.log)"
	done || exit 1
	return 0
}

start_ctld() {
	date +%s.%N >"$D/ctld-start"
	slurmctld -i </dev/null >>"$D/log/slurmctld.out" 2>&1 ||
		die "slurmctld did not start (see $D/log/slurmctld.log)"
	poll timeout 5 scontrol ping || die "slurmctld not answering within 60 s (see $D/log/slurmctld.log)"
}

start() {
	D=$1
	END=$(( $(date +%s) + 60 ))
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
	chmod 1777 "$D/tmp"
	head -c 1024 /dev/urandom >"$D/munge/munge.key"
	chmod 600 "$D/munge/munge.key"
	munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.socket" \
		--pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
		--seed-file="$D/munge/munge.seed" --force </dev/null >/dev/null 2>&1 ||
		die "munged did not start (see $D/log/munged.log)"
	poll test -S "$D/munge/munge.socket" || die "munged: no socket within 60 s"
	if acct_on; then
		acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((16819 + PO))
AccountingStoragePass=$D/munge/munge.socket
AccountingStorageTRES=gres/gpu
AccountingStorageEnforce=associations,limits
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/none"
	else
		acct="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
	fi
	cat >"$D/etc/slurm.conf.base" <<EOC
ClusterName=hetlab
SlurmctldHost=localhost
SlurmctldPort=$((16817 + PO))
SlurmdPort=$((16818 + PO))
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
$acct
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=${LOCAL_SLURM_SELECT:-CR_Core_Memory}
SchedulerParameters=batch_sched_delay=0,bf_interval=1
ReturnToService=2
SlurmdParameters=config_overrides
TmpFS=$D/tmp
MinJobAge=${LOCAL_SLURM_MINJOBAGE:-300}
GresTypes=gpu
NodeName=n[1-6] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((17001 + PO))-$((17006 + PO))] CPUs=${LOCAL_SLURM_CPUS:-4} RealMemory=${LOCAL_SLURM_MEM:-4000} Gres=gpu:fake:2 State=UNKNOWN
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
PartitionName=second Nodes=n[5-6] MaxTime=INFINITE State=UP
EOC
	# The caller's lines replace those of the same keys.
	printf '%s\n' "${LOCAL_SLURM_CONF_EXTRA:-}" >"$D/etc/slurm.conf.extra"
	awk -F= 'NR == FNR { if (NF > 1 && $1 !~ /^[[:space:]]*#/) drop[tolower($1)] = 1; next }
		!(tolower($1) in drop)' "$D/etc/slurm.conf.extra" "$D/etc/slurm.conf.base" >"$D/etc/slurm.conf"
	grep -v '^[[:space:]]*$' "$D/etc/slurm.conf.extra" >>"$D/etc/slurm.conf"
	cat >"$D/etc/gres.conf" <<EOC
AutoDetect=off
NodeName=n[1-6] Name=gpu Type=fake File=$D/fakedev/gpu[0-1]
EOC
	echo "SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF" >"$D/env"
	SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF
	if acct_on; then start_db; fi
	start_ctld
	n=1
	while [ $n -le $NODES ]; do
		slurmd -N n$n </dev/null >>"$D/log/slurmd.out" 2>&1 ||
			die "slurmd n$n did not start (see $D/log/slurmd-n$n.log)"
		n=$((n + 1))
	done
	poll idle_nodes || die "nodes not idle within 60 s: $(sinfo -h 2>&1 | tr '\n' ' ')(see $D/log/)"
	echo "local-slurm: $NODES nodes idle$(acct_on && echo ', accounting on'); . $D/env"
}

# Kills the process whose pid is in file $1, then waits for it (SIGKILL after 5 s).
# kill_pidfile FILE...: TERM to each daemon, then up to 5 s for all of them
# to exit (each takes about 2 s: together, not one after another), then
# KILL to what is left.
kill_pidfile() {
	pids=
	for f in "$@"; do
		[ -s "$f" ] || continue
		pid=$(cat "$f")
		case $pid in ''|*[!0-9]*) continue ;; esac
		kill "$pid" 2>/dev/null && pids="$pids $pid"
	done
	i=0
	while [ $i -lt 25 ]; do
		left=
		for pid in $pids; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
		[ -z "$left" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	for pid in $left; do kill -9 "$pid" 2>/dev/null; done
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
	kill_pidfile "$D"/run/slurmd-n*.pid "$D/run/slurmctld.pid"
	kill_pidfile "$D/run/slurmdbd.pid" "$D/run/mariadbd.pid"
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

ctld() {
	D=$(cd "$2" && pwd)
	END=$(( $(date +%s) + 60 ))
	SLURM_CONF=$D/etc/slurm.conf; export SLURM_CONF
	case $1 in
	stop-ctld) kill_pidfile "$D/run/slurmctld.pid" ;;
	start-ctld) start_ctld ;;
	restart-ctld) kill_pidfile "$D/run/slurmctld.pid"; start_ctld ;;
	esac
}

case ${1:-} in
start) [ $# = 2 ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
stop-ctld|start-ctld|restart-ctld) [ $# = 2 ] || die "usage: $0 $1 DIR"; ctld "$1" "$2" ;;
*) die "usage: $0 start|stop|stop-ctld|start-ctld|restart-ctld DIR" ;;
esac
