#!/bin/sh
# bench/ab.sh OLD_BUILD NEW_BUILD [SCENARIO] [RUNS] — the replay benchmark of
# two builds (e.g. the base commit built in a scratch worktree, and this
# tree) run alternately, one run each at a time, so that the machine's load
# touches both alike; prints each build's medians of the replay without and
# with the recorder (wall and CPU seconds) and of its results file, and the
# ratios. SCENARIO defaults to scenarios/lanl-cm5.json, RUNS to 5. Run from
# the repository root; the trace directory is $HETLAB_TRACES, as for
# bench/replay.
#
#   git worktree add ../base bae9ac3 && make -C ../base build/bench/replay
#   sh bench/ab.sh ../base/build build scenarios/lanl-cm5.json 5
set -u
old=${1:?usage: bench/ab.sh OLD_BUILD NEW_BUILD [SCENARIO] [RUNS]}
new=${2:?usage: bench/ab.sh OLD_BUILD NEW_BUILD [SCENARIO] [RUNS]}
scn=${3:-scenarios/lanl-cm5.json}
runs=${4:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for i in $(seq 1 "$runs"); do
	for b in old new; do
		eval dir=\$$b
		if ! "$dir/bench/replay" "$scn" --runs 1 > "$tmp/$b.$i" 2>&1; then
			echo "ab: $dir/bench/replay $scn failed:"
			cat "$tmp/$b.$i"
			exit 1
		fi
	done
done

# One line per run: plain wall, plain cpu (or -), recorder wall, recorder cpu (or -), MiB.
# Both the old output ("replay, SQLite recorder", no cpu column) and the new
# one ("replay, recorder (events)", with it) are read.
extract() {
	awk '
		/replay, no recorder/ { if (NF >= 8) { pw = $4; pc = $5 } else { pw = $4; pc = "-" } }
		/replay, SQLite recorder/ { rw = $4; rc = "-" }
		/replay, recorder \(/ && !done { rw = $4; rc = $5; done = 1 }
		/results file/ && mib == "" { for (i = 1; i <= NF; i++) if ($i == "MiB") mib = $(i - 1) }
		END { print pw, pc, rw, rc, mib }' "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for b in old new; do
	: > "$tmp/$b.all"
	for i in $(seq 1 "$runs"); do extract "$tmp/$b.$i" >> "$tmp/$b.all"; done
done

echo "bench/ab.sh: $scn, $runs alternating runs each, medians ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  %-6s %-40s %10s %10s %10s %10s %8s %9s\n' build dir "plain s" "plain cpu" "rec s" "rec cpu" "rec/pl" "file MiB"
for b in old new; do
	eval dir=\$$b
	pw=$(cut -d' ' -f1 "$tmp/$b.all" | median)
	rw=$(cut -d' ' -f3 "$tmp/$b.all" | median)
	mib=$(cut -d' ' -f5 "$tmp/$b.all" | median)
	if grep -q ' - ' "$tmp/$b.all"; then pc=-; rc=-; else
		pc=$(cut -d' ' -f2 "$tmp/$b.all" | median)
		rc=$(cut -d' ' -f4 "$tmp/$b.all" | median)
	fi
	ratio=$(awk -v a="$rw" -v b="$pw" 'BEGIN { printf "%.2fx", a / b }')
	printf '  %-6s %-40s %10s %10s %10s %10s %8s %9s\n' "$b" "$dir" "$pw" "$pc" "$rw" "$rc" "$ratio" "$mib"
	eval "${b}_rw=$rw ${b}_mib=$mib"
done
awk -v o="$old_rw" -v n="$new_rw" -v om="$old_mib" -v nm="$new_mib" 'BEGIN {
	printf "  new / old: replay with the recorder %.2fx, results file %.0f %%\n", n / o, 100 * nm / om }'
