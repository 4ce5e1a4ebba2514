#!/bin/sh
# make test-slurm: `hetlab sweep --slurm` against a real local Slurm cluster
# (tests/slurm/local-slurm.sh) started in a temporary directory.
#
#   sh tests/slurm/run.sh build/hetlab
#
# Installs slurmctld slurmd slurm-client munge slurmdbd mariadb-server when
# missing (as root). When
# the cluster cannot be started, prints "SKIP slurm: why" and exits 0; once
# it is up, any failed check exits 1. Prints "slurm: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
SWEEP=$ROOT/scenarios/sweep-example.json
[ -x "$HETLAB" ] || { echo "slurm: $HETLAB not found" >&2; exit 1; }

skip() { echo "SKIP slurm: $*"; exit 0; }

have_slurm() {
	for c in munged slurmctld slurmd sbatch squeue scontrol sinfo slurmdbd mariadbd sacct; do
		command -v $c >/dev/null 2>&1 || return 1
	done
}
[ "$(id -u)" = 0 ] || skip "needs root (munged and slurmd run as root here)"
if ! have_slurm; then
	echo "== installing slurmctld slurmd slurm-client munge slurmdbd mariadb-server"
	pk="slurmctld slurmd slurm-client munge slurmdbd mariadb-server"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pk </dev/null >/dev/null 2>&1 ||
		{ apt-get update -qq </dev/null >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pk </dev/null >/dev/null 2>&1; }
	have_slurm || skip "could not install $pk"
fi

D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-slurm-XXXXXX") || skip "mktemp failed"
stopped=0
cleanup() {
	[ $stopped = 1 ] || sh "$HERE/local-slurm.sh" stop "$D"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

t0=$(date +%s)
if ! msg=$(sh "$HERE/local-slurm.sh" start "$D/cluster" 2>&1 </dev/null); then
	skip "cluster did not start: $(printf '%s' "$msg" | tail -n 1)"
fi
. "$D/cluster/env"
echo "$msg ($(($(date +%s) - t0)) s)"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# 1. The sweep as one job array, waited for and merged.
t1=$(date +%s)
if timeout 300 "$HETLAB" sweep "$SWEEP" --slurm --wait --max-parallel 4 --out "$D/sw" \
	</dev/null >"$D/slurm.out" 2>"$D/slurm.err"; then
	ok "sweep --slurm --wait ($(($(date +%s) - t1)) s): $(grep -o 'submitted job array [0-9]*' "$D/slurm.out")"
else
	bad "sweep --slurm --wait exited $?"
	sed 's/^/  | /' "$D/slurm.out" "$D/slurm.err"
	for f in "$D"/sw/slurm-*.out; do [ -f "$f" ] && sed "s|^|  | ${f##*/}: |" "$f"; done
fi

# 2. Eight ok results in the merged summary.
n=$(sqlite3 "$D/sw/summary.db" "SELECT count(*) FROM result WHERE status = 'ok'" 2>/dev/null)
if [ "$n" = 8 ]; then ok "summary.db: 8 ok results"; else bad "summary.db: ${n:-no} ok results, expected 8"; fi

# 3. Identical to a local sweep: table point, and table result (its db
# column is relative to OUT, so every column compares; only table sweep
# differs, by file, out and created).
q='SELECT * FROM point ORDER BY id; SELECT * FROM result ORDER BY point, seed;'
if "$HETLAB" sweep "$SWEEP" -j 2 --out "$D/local" </dev/null >/dev/null 2>"$D/local.err"; then
	sqlite3 "$D/sw/summary.db" "$q" >"$D/a.txt" 2>&1
	sqlite3 "$D/local/summary.db" "$q" >"$D/b.txt" 2>&1
	if [ -s "$D/a.txt" ] && cmp -s "$D/a.txt" "$D/b.txt"; then
		ok "point and result tables identical to a local sweep -j 2 ($(wc -l <"$D/a.txt") rows)"
	else
		bad "summary differs from a local sweep -j 2"
		diff "$D/a.txt" "$D/b.txt" | head -20 | sed 's/^/  | /'
	fi
else
	bad "local sweep -j 2 failed"
	sed 's/^/  | /' "$D/local.err"
fi

# 4. --merge alone rebuilds the same tables without running anything.
rm -f "$D/sw/summary.db"
if "$HETLAB" sweep "$SWEEP" --merge --out "$D/sw" </dev/null >/dev/null 2>"$D/merge.err" &&
	sqlite3 "$D/sw/summary.db" "$q" >"$D/c.txt" 2>&1 && cmp -s "$D/a.txt" "$D/c.txt"; then
	ok "sweep --merge rebuilds the same tables"
else
	bad "sweep --merge"
	sed 's/^/  | /' "$D/merge.err"
fi

# 4b. A measurement window reaches the array's runs (their stored
# metrics) and the merge the sweep prints for later: that merge gives what
# a local sweep with the same window gives (it once printed the merge
# without the window, which then summarised the whole runs).
if out=$(timeout 60 "$HETLAB" sweep "$SWEEP" --slurm --warmup 1h --out "$D/sww" </dev/null 2>"$D/sww.err"); then
	id=$(printf '%s\n' "$out" | grep -o 'submitted job array [0-9]*' | grep -o '[0-9]*$')
	merge=$(printf '%s\n' "$out" | sed -n 's/^when it is done: hetlab //p')
	k=0
	while [ -n "$id" ] && [ $k -lt 300 ] && [ -n "$(squeue -h -j "$id" 2>/dev/null)" ]; do
		sleep 1
		k=$((k + 1))
	done
	# shellcheck disable=SC2086 # the printed command, its words split as a shell would (no spaces in them)
	if printf '%s' "$merge" | grep -q -- '--warmup 3600s' &&
		"$HETLAB" $merge </dev/null >/dev/null 2>"$D/sww-merge.err" &&
		"$HETLAB" sweep "$SWEEP" -j 2 --warmup 1h --out "$D/localw" </dev/null >/dev/null 2>&1 &&
		sqlite3 "$D/sww/summary.db" "$q" >"$D/w1.txt" 2>&1 && sqlite3 "$D/localw/summary.db" "$q" >"$D/w2.txt" 2>&1 &&
		cmp -s "$D/w1.txt" "$D/w2.txt" && ! cmp -s "$D/w1.txt" "$D/a.txt"; then
		ok "sweep --slurm --warmup 1h: the printed merge ($merge) gives the tables of a local sweep --warmup 1h"
	else
		bad "sweep --slurm --warmup: merge '$merge'"
		sed 's/^/  | /' "$D/sww.err" "$D/sww-merge.err" 2>/dev/null
		diff "$D/w1.txt" "$D/w2.txt" 2>/dev/null | head -10 | sed 's/^/  | /'
	fi
else
	bad "sweep --slurm --warmup 1h exited $?"
	sed 's/^/  | /' "$D/sww.err"
fi

# 5. stop leaves none of the daemons it started.
pids=$(cat "$D"/cluster/run/*.pid 2>/dev/null)
sh "$HERE/local-slurm.sh" stop "$D/cluster"
stopped=1
left=
for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
if [ -n "$pids" ] && [ -z "$left" ]; then
	ok "stop: all $(echo $pids | wc -w) daemons gone"
else
	bad "stop: still running:${left:- (no pid files)}"
fi

echo "slurm: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ $fail = 0 ]
