#!/bin/sh
# bench/why-ab.sh OLD_HETLAB NEW_HETLAB [RUNS] — the queue policies that give
# reasons (decide_note) cost nothing when nobody listens: the same runs
# with two builds (the base commit's and this tree's), alternately, RUNS
# each (default 3); prints each run's median wall and CPU (user+sys)
# seconds for both and their ratio. Run from the repository root.
#
#   sh bench/why-ab.sh ../base/build/hetlab build/hetlab 3
set -u
old=${1:?usage: bench/why-ab.sh OLD_HETLAB NEW_HETLAB [RUNS]}
new=${2:?usage: bench/why-ab.sh OLD_HETLAB NEW_HETLAB [RUNS]}
runs=${3:-3}
ct=build/bench/cputime
[ -x "$ct" ] || { echo "why-ab: build $ct first (make build/bench/cputime)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
old=$(readlink -f "$old")
new=$(readlink -f "$new")

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for spec in "kth-slurm scenarios/kth-sp2.json --policy slurm" \
            "kth-conservative scenarios/kth-sp2.json --policy conservative" \
            "kth-fairshare scenarios/kth-sp2.json --policy fairshare" \
            "default-tiered scenarios/default.json --policy tiered"; do
	set -- $spec
	label=$1
	shift
	for i in $(seq 1 "$runs"); do
		for b in old new; do
			eval bin=\$$b
			if ! "$ct" "$tmp/$b.$label.$i" "$bin" run "$@" --out "$tmp/o.db" >/dev/null 2>"$tmp/err"; then
				echo "why-ab: $bin run $* failed: $(tail -1 "$tmp/err")"
				exit 1
			fi
			rm -f "$tmp/o.db"
		done
	done
	for b in old new; do
		w=$(cat "$tmp/$b.$label".* | awk '{ print $1 }' | median)
		c=$(cat "$tmp/$b.$label".* | awk '{ print $2 }' | median)
		eval "${b}_w=$w ${b}_c=$c"
	done
	printf '%-18s old wall %7.2f s cpu %7.2f s   new wall %7.2f s cpu %7.2f s   cpu new/old %.3f\n' \
		"$label" "$old_w" "$old_c" "$new_w" "$new_c" "$(echo "$new_c $old_c" | awk '{ printf "%.3f", $1 / $2 }')"
done
