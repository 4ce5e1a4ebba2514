#!/bin/sh
# make test-slurm: the Slurm twin's pipeline end to end on a real local
# Slurm (the short version of bench/twin.sh): one small workload that
# preempts (bench/twinload.py preempt, 80 jobs of at most 90 s), one real
# run, its dumps, hetlab twin build, the replays (seeds 1-5), hetlab twin
# check (the first seed's here).
#
#   sh tests/slurm/twin.sh build/hetlab
#
# Passes when the pipeline works: every job of the dump matched in the
# twin's run, the figures printed, Kendall's tau-b of the start orders
# positive, preemptions seen on the real side. No timing threshold (the
# bench's figures are in docs/slurm-twin.md). The cluster's ports are
# local-slurm.sh's plus 2000 (/tmp/hetlab-slurm-2000.lock held). Prints "SKIP twin: why" and
# exits 0 when Slurm cannot run here; "twin: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
[ -x "$HETLAB" ] || { echo "twin: $HETLAB not found" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-twin-test-XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
trap 'exit 130' INT TERM HUP

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

t0=$(date +%s)
sh "$ROOT/bench/twin.sh" --test --port-offset 2000 --out "$D/out" "$HETLAB" </dev/null >"$D/bench.out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP twin: $(head -n 1 "$D/bench.out" | sed 's/^twin: //')"
	exit 0
fi
if grep -q 'the cluster did not start' "$D/bench.out"; then
	echo "SKIP twin: $(grep 'the cluster did not start' "$D/bench.out" | sed 's/^twin: //')"
	exit 0
fi
R=$D/out/preempt/run1
if [ $rc = 0 ]; then
	ok "bench/twin.sh --test ($(($(date +%s) - t0)) s): $(grep -c . "$R/submit.log") jobs submitted, dumped, twin built, replayed, checked"
else
	bad "bench/twin.sh --test exited $rc"
	sed 's/^/  | /' "$D/bench.out" | tail -n 30
fi
# Every job that ran in the dump matched in the twin's run, and nothing else.
if python3 - "$R/check-s1.json" "$R/run.sacct" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
jobs = {l.split("|")[1] for l in open(sys.argv[2]).readlines()[1:] if "|" in l}
assert c["matched"] == c["jobs_a"] == c["jobs_b"] == len(jobs) - c["never_ran_a"] > 0, c
assert c["only_a"] == c["only_b"] == c["unstarted"] == c["dup_a"] == c["dup_b"] == 0, c
EOF
then
	ok "twin check: every job of the dump matched ($(grep -o '[0-9]* matched' "$R/check.txt"))"
else
	bad "twin check: jobs unmatched"
	sed 's/^/  | /' "$R/check.txt" 2>/dev/null
fi
miss=
for k in 'mean wait     real' '|dstart|      median' 'within 1 bf' "Kendall's tau-b" 'preemptions   real'; do
	grep -qF "$k" "$R/check.txt" 2>/dev/null || miss="$miss '$k'"
done
[ -z "$miss" ] && ok "twin check prints the figures" || bad "twin check does not print$miss"
tau=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tau_b"])' "$R/check-s1.json" 2>/dev/null)
case $tau in
0.*|1.0*) [ "$tau" != 0.0 ] && ok "Kendall's tau-b of the start orders positive ($tau)" || bad "tau-b $tau" ;;
*) bad "Kendall's tau-b of the start orders '$tau', expected positive" ;;
esac
pre=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["preempt_a"])' "$R/check-s1.json" 2>/dev/null)
if [ "${pre:-0}" -gt 0 ] 2>/dev/null; then
	ok "preemptions on the real side: $pre ($(grep -c 'PREEMPTED' "$R/run.sacct") PREEMPTED lines in sacct -D)"
else
	bad "no preemption on the real side (the workload preempts)"
fi
last=$(tail -n 1 "$D/bench.out")
case $last in
"twin: "*" jobs, mean wait error "*" % (Slurm's own "*" %), median |dstart| "*" s (Slurm's own "*" s), p90 |dstart| "*" s (Slurm's own "*" s)")
	ok "the bench's last line: $last" ;;
*) bad "the bench's last line: '$last'" ;;
esac
echo "twin: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ $fail = 0 ]
