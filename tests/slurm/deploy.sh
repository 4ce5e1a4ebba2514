#!/bin/sh
# What deploy/ ships, tried: the systemd unit, the example config and the
# job_submit rule (docs/slurm.md, "Deploying").
#
#   sh tests/slurm/deploy.sh build/hetlab
#
#   - deploy/systemd/hetlab-live@.service passes `systemd-analyze verify`
#     without a warning (without systemd: a syntax check of its lines);
#   - deploy/live-slurm.example.json has every key of the "slurm" section
#     that config/livecfg.c knows, and docs/slurm.md explains each;
#   - on the local cluster (tests/slurm/local-slurm.sh), the daemon runs
#     the example config (only the site's names and paths changed) inside
#     the unit's privileges (its CapabilityBoundingSet, no new privileges):
#     jobs run, with the memory default, the accounts, the QOS and the GRES
#     type the config gives;
#   - deploy/slurm/job_submit.lua loaded by slurmctld: a user's own sbatch
#     in hetlab's partition (named, in a list, or by default) is refused,
#     elsewhere accepted; the user cannot release or change a job hetlab
#     submitted for them, but its wrapper's requeuehold still works; the
#     daemon's jobs run;
#   - the alternative of docs/slurm.md, RootOnly=YES: a user's job is
#     refused, one submitted by root with --uid is accepted.
# Never skips once the checks need the cluster: one that does not start is
# a failure. Prints "slurm deploy: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
t0=$(date +%s)
die() { echo "FAIL slurm deploy: $*"; exit 1; }
[ -x "$HETLAB" ] || die "$HETLAB not found"
[ "$(id -u)" = 0 ] || die "needs root (munged and slurmd run as root here)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue scontrol sinfo scancel sacct sqlite3 python3 setpriv; do
	command -v $c >/dev/null 2>&1 || die "$c not found (apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server sqlite3 python3 util-linux)"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-deploy-XXXXXX") || die "mktemp failed"
chmod 755 "$D"   # the user nobody reaches the cluster's munge socket and slurm.conf
C=${LOCAL_SLURM_DIR:-$D/cluster}
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${LOCAL_SLURM_DIR:-}" ] || sh "$HERE/local-slurm.sh" stop "$C" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
NAME="slurm deploy"
. "$HERE/testlib.sh"
UNIT=$TOP/deploy/systemd/hetlab-live@.service
EXAMPLE=$TOP/deploy/live-slurm.example.json
LUA=$TOP/deploy/slurm/job_submit.lua
cd "$D" || exit 1

# --- the unit ---------------------------------------------------------------
mkdir unit
sed "s|^ExecStart=/usr/local/bin/hetlab |ExecStart=$HETLAB |" "$UNIT" >unit/hetlab-live@site.service
if command -v systemd-analyze >/dev/null 2>&1; then
	out=$(systemd-analyze verify unit/hetlab-live@site.service 2>&1)
	check "unit: systemd-analyze verify has nothing to say" "$([ $? = 0 ] && [ -z "$out" ] && echo 1)" "$out"
else
	out=$(awk '/^[[:space:]]*(#|$)/ { next }
		/^\[(Unit|Service|Install)\]$/ { s = $0; next }
		s == "" || !/^[A-Z][A-Za-z]*=/ { printf "line %d: %s\n", NR, $0 }' unit/hetlab-live@site.service)
	check "unit: every line a comment, a section or Key=value (no systemd-analyze here)" "$([ -z "$out" ] && echo 1)" "$out"
fi
for kv in Type=simple Restart=on-failure KillMode=process RuntimeDirectory=hetlab StateDirectory=hetlab \
	'ExecStart=/usr/local/bin/hetlab live --config /etc/hetlab/%i.json' WantedBy=multi-user.target; do
	grep -qxF "$kv" "$UNIT" || bad "unit: $kv" "not in $UNIT"
done
ok "unit: an instance per /etc/hetlab/NAME.json, restarted on failure, socket and state directories"
sd=$(python3 -c "import json; print(json.load(open('$EXAMPLE'))['state_dir'])")
check_eq "unit and example: the state under the unit's StateDirectory" "${sd%/*}" /var/lib/hetlab

# --- the example config and its documentation -----------------------------------
keys=$(sed -n '/slurm_keys\[\] = {/,/NULL };/p' "$TOP/config/livecfg.c" | grep -o '"[a-z_]*"' | tr -d '"' | sort | paste -sd' ' -)
ex=$(python3 -c "import json; print(' '.join(sorted(json.load(open('$EXAMPLE'))['slurm'])))")
check_eq "example: every slurm key config/livecfg.c knows" "$ex" "$keys"
undoc=$(for k in $keys; do grep -q "^| \`slurm\.$k\`" "$TOP/docs/slurm.md" || echo "$k"; done | paste -sd' ' -)
check "docs/slurm.md explains every slurm key" "$([ -z "$undoc" ] && echo 1)" "not in its table: $undoc"

# --- the cluster ------------------------------------------------------------------
if [ -z "${LOCAL_SLURM_DIR:-}" ] && ! msg=$(sh "$HERE/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	tail -n 20 "$C/log/slurmctld.log" 2>/dev/null
	die "the cluster did not start"
fi
. "$C/env"
export SLURM_CONF

cat >site-scenario.json <<'EOF'
{ "name": "deploy", "seed": 1, "policy": "tiered",
  "node_types": [ { "name": "gpu2", "gpu": "L40S-48GB", "gpus": 2, "cpu": "Xeon-6348", "sockets": 1, "cores": 4, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "nodes": [ { "type": "gpu2", "count": 4, "names": ["n1", "n2", "n3", "n4"] } ] } ],
  "org": { "tenants": [ { "name": "t0" }, { "name": "t1" } ] } }
EOF
# The example with the site's names and paths replaced, every key kept.
python3 - "$EXAMPLE" "$D" "$(dirname "$(command -v sbatch)")" >site.json <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
d = sys.argv[2]
c["scenario"] = "site-scenario.json"
c["state_dir"] = d + "/st"
c["tick_s"] = 0.2
c["metrics"]["port"] = 0
s = c["slurm"]
s["bindir"] = sys.argv[3]
s["partition"] = ["debug"]
s["class_partition"] = {"inference": "debug"}
s["qos"] = {"inference": "normal", "*": "normal"}
s["accounts"] = {"t0": "t0"}
s["gres_types"] = {"L40S-48GB": "fake"}
s["mem_mib_default"] = 500
s["workdir"] = d + "/st/slurm"
json.dump(c, sys.stdout, indent=2)
EOF
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
setpriv --no-new-privs --bounding-set="-all${caps:+,$caps}" --inh-caps=-all -- \
	"$HETLAB" live --config site.json >daemon.log 2>&1 &
DPID=$!
T=30 until_ok grep -q 'executor, policy' daemon.log
check "example: the daemon runs it, with the unit's capabilities ($caps) and no new privileges" \
	"$(grep -q 'executor, policy' daemon.log && kill -0 $DPID 2>/dev/null && echo 1)" "$(tail -n 5 daemon.log)"
job() {   # NAME CLASS TENANT GPUS [MEM_MIB]
	printf '{"name": "%s", "class": "%s", "tenant": %s, "walltime_us": 600000000, "req": {"nodes": 1, "cores": 1, "gpus": %s%s}, "argv": ["sleep", "1"]}\n' \
		"$1" "$2" "$3" "$4" "${5:+, \"mem_mib\": $5}"
}
{ job plain batch 0 0; job inf inference 1 1 300; job tr training 0 2 300; } | "$HETLAB" submit --config site.json - >/dev/null
q() { sqlite3 -batch -noheader st/state.db "$1"; }
T=60 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader st/state.db \"SELECT count(*) FROM jobs WHERE state = 'done'\")\" = 3 ]"
check_eq "example: three jobs ran" "$(q "SELECT group_concat(name || ':' || state, ' ') FROM jobs ORDER BY id")" "plain:done inf:done tr:done"
sid() { q "SELECT ref FROM jobs WHERE name = '$1'"; }
# slurmdbd has each job's whole record (it lags slurmctld a little).
T=30 until_ok sh -c "[ \"\$(sacct -n -X -P -j $(sid plain),$(sid inf),$(sid tr) --format=State,QOS | grep -c '^COMPLETED|[a-z]')\" = 3 ]"
acct() { sacct -n -X -P -j "$(sid "$1")" --format="$2" | tail -n 1; }
check_eq "example: mem_mib_default for a job that gives none" "$(acct plain ReqMem)" 500M
check_eq "example: accounts (t0 mapped), account \"tenant\" (t1 by its name)" "$(acct plain Account) $(acct inf Account)" "t0 t1"
check_eq "example: qos" "$(acct inf QOS) $(acct tr QOS)" "normal normal"
check_eq "example: gres_types" "$(acct tr SubmitLine%400 | grep -o -- '--gres=gpu:fake:2')" "--gres=gpu:fake:2"
check "example: the clients find the state through the config" \
	"$("$HETLAB" queue --config site.json --all | grep -c ' done ' | awk '{print ($1 == 3)}')" "$("$HETLAB" queue --config site.json --all 2>&1)"

# --- job_submit.lua ------------------------------------------------------------------
sed 's/^local HETLAB_PARTITIONS = .*/local HETLAB_PARTITIONS = { debug = true }/' "$LUA" >"$C/etc/job_submit.lua"
echo "JobSubmitPlugins=lua" >>"$C/etc/slurm.conf"
sh "$HERE/local-slurm.sh" restart-ctld "$C" >/dev/null 2>&1 || bad "slurmctld restarted with JobSubmitPlugins=lua"
check "job_submit: slurmctld loaded the rule" "$(grep -q "hetlab's rule loaded" "$C/log/slurmctld.log" && echo 1)" \
	"$(grep -i lua "$C/log/slurmctld.log" | tail -n 3)"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }
user_job() { as_nobody sbatch --parsable --chdir=/tmp --output=/dev/null -N1 -c1 --mem=100 "$@" --wrap 'sleep 20' 2>&1; }
out=$(user_job -p debug)
check "job_submit: a user's sbatch -p debug is refused, with the reason" \
	"$(printf '%s' "$out" | grep -q 'scheduled by hetlab' && echo 1)" "$out"
out=$(user_job)
check "job_submit: refused in the default partition too" "$(printf '%s' "$out" | grep -q 'scheduled by hetlab' && echo 1)" "$out"
out=$(user_job -p second,debug)
check "job_submit: refused in a list of partitions" "$(printf '%s' "$out" | grep -q 'scheduled by hetlab' && echo 1)" "$out"
out=$(user_job -p second)
check "job_submit: accepted in another partition" "$(printf '%s' "$out" | grep -qx '[0-9]*' && echo 1)" "$out"
printf '%s' "$out" | grep -qx '[0-9]*' && scancel "$out"
# A job hetlab submitted for the user (root, --uid), held: the user may not release or change it.
h=$(sbatch --parsable --uid=nobody --gid="$(id -g nobody)" --chdir=/tmp --output=/dev/null -p debug -N1 -c1 --mem=100 --hold --wrap 'sleep 20' 2>&1)
out=$(as_nobody scontrol release "$h" 2>&1)
check "job_submit: the user cannot release a held job of the partition" "$([ "$(squeue -h -j "$h" -o %r)" = JobHeldUser ] || [ "$(squeue -h -j "$h" -o %r)" = JobHeldAdmin ] && echo 1)" \
	"$out; $(squeue -h -j "$h" -o '%T %r')"
out=$(as_nobody scontrol update JobId="$h" TimeLimit=5 2>&1)
check "job_submit: nor change it" "$([ "$(squeue -h -j "$h" -o %l)" != 5:00 ] && echo 1)" "$out; $(squeue -h -j "$h" -o '%l')"
scancel "$h"
# Running, the user (its wrapper) may still requeue it held.
r=$(sbatch --parsable --uid=nobody --gid="$(id -g nobody)" --chdir=/tmp --output=/dev/null -p debug -N1 -c1 --mem=100 --wrap 'sleep 30' 2>&1)
T=20 until_ok sh -c "[ \"\$(squeue -h -j $r -o %T)\" = RUNNING ]"
out=$(as_nobody scontrol requeuehold "$r" 2>&1)
T=20 until_ok sh -c "squeue -h -j $r -o '%T %r' | grep -q 'PENDING.*held'"
check "job_submit: the job's own requeuehold (the wrapper's, after a checkpoint) still works" \
	"$(squeue -h -j "$r" -o '%T %r' | grep -q 'PENDING.*held' && echo 1)" "$out; $(squeue -h -j "$r" -o '%T %r')"
scancel "$r"
job after batch 0 0 | "$HETLAB" submit --config site.json - >/dev/null
T=40 until_ok sh -c "[ \"\$(sqlite3 -batch -noheader st/state.db \"SELECT state FROM jobs WHERE name = 'after'\")\" = done ]"
check_eq "job_submit: the daemon's jobs still run" "$(q "SELECT state FROM jobs WHERE name = 'after'")" done
kill -TERM "$DPID"
wait "$DPID" 2>/dev/null
DPID=

# --- the alternative: RootOnly=YES ------------------------------------------------------
scontrol update PartitionName=second RootOnly=YES
out=$(user_job -p second)
check "RootOnly=YES: a user's own job is refused" "$(printf '%s' "$out" | grep -qx '[0-9]*' || echo 1)" "$out"
out=$(sbatch --parsable --uid=nobody --gid="$(id -g nobody)" --chdir=/tmp --output=/dev/null -p second -N1 -c1 --mem=100 --wrap true 2>&1)
check "RootOnly=YES: root's submission for the user (--uid) is accepted" "$(printf '%s' "$out" | grep -qx '[0-9]*' && echo 1)" "$out"
summary
