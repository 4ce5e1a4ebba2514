#!/bin/sh
# bench/twin-speed.sh — how fast the Slurm twin replays a month of a
# 1,000-node site's history (issue item 5: 100,000x real time or more, in
# CPU seconds; HPE's FastSim: about 400x).
#
#   sh bench/twin-speed.sh [HETLAB] [--runs N] [--days D] [--nodes N]
#                          [--kinds national,campus:1] [--base HETLAB2]
#                          [--base-kinds national]
#
# For each kind of site of bench/twinsite.py (seed 1; national: ARCHER2's
# shape, whole 128-core nodes, about 27,000 jobs a month; campus: 64-core
# nodes shared by small jobs, a tenth with A100s, about 280,000 jobs a
# month), it writes the site's slurm.conf, gres.conf, sacctmgr and sacct
# -D dumps, builds the twin from them (hetlab twin build) and replays it N
# times (KIND:N in --kinds; else --runs, default 3) as a user would (hetlab run, its results file at the default
# record level, jobs and events). Printed per kind: the jobs, the
# median CPU time (user + system, of the replay process) and wall time,
# and the speed: the history's span (D days, default 30) over the CPU
# time. With --base, a second build (e.g. the previous commit's, built in
# a worktree) runs alternately with the first on the kinds of --base-kinds
# (default national: an older twin may take an hour on campus), each on
# the twin its own `twin build` writes, and the ratio of their medians is
# printed. The last line: `twin-speed: KIND Nx, ... (target
# 100,000x: ...)`. Python 3 measures the CPU time (getrusage of the
# child). Run from the repository root; it takes a few minutes (campus
# the most).
set -u
HETLAB=build/hetlab
runs=3
days=30
nodes=1000
kinds=national,campus:1
base=
base_kinds=national
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--days) days=$2; shift 2 ;;
	--nodes) nodes=$2; shift 2 ;;
	--kinds) kinds=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--base-kinds) base_kinds=$2; shift 2 ;;
	-*) echo "usage: bench/twin-speed.sh [HETLAB] [--runs N] [--days D] [--nodes N] [--kinds LIST] [--base HETLAB2]" >&2
	    exit 2 ;;
	*) HETLAB=$1; shift ;;
	esac
done
[ -x "$HETLAB" ] || { echo "twin-speed: no hetlab at $HETLAB (make first)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "twin-speed: needs python3 (apt-get install python3)" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_of CMD...: runs CMD (output to $tmp/out) and prints "CPU WALL" in seconds.
cpu_of() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.stderr.write(r.stderr.decode(errors="replace"))
    sys.exit(1)
print("%.3f %.3f %.3f %.3f" % (u.ru_utime + u.ru_stime, wall, u.ru_utime, u.ru_stime))
EOF
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "twin-speed: $(nproc 2>/dev/null || echo '?') CPUs, ${cpu:-unknown CPU}; $HETLAB${base:+ against $base}"
summary=
verdict=
for item in $(echo "$kinds" | tr ',' ' '); do
	kind=${item%%:*}
	n=$runs
	[ "$kind" = "$item" ] || n=${item#*:}
	b_here=
	case ",$base_kinds," in *",$kind,"*) b_here=$base ;; esac
	site=$tmp/$kind
	if ! python3 bench/twinsite.py "$site" --kind "$kind" --nodes "$nodes" --days "$days" > "$tmp/site.out"; then
		echo "twin-speed: bench/twinsite.py --kind $kind failed"
		exit 1
	fi
	gres=
	[ -f "$site/gres.conf" ] && gres="--gres-conf $site/gres.conf --gpu-model a100=A100-SXM-80GB"
	# each build replays the twin its own twin build writes, as its user would
	for b in new ${b_here:+old}; do
		bin=$HETLAB
		[ "$b" = old ] && bin=$base
		# shellcheck disable=SC2086
		if ! "$bin" twin build --slurm-conf "$site/slurm.conf" $gres --assoc "$site/assoc.txt" --qos "$site/qos.txt" \
			--sacct "$site/site.sacct" --out "$site/twin-$b.json" > /dev/null 2> "$tmp/build.err"; then
			echo "twin-speed: $bin twin build $kind failed"
			cat "$tmp/build.err"
			exit 1
		fi
	done
	jobs=$(($(wc -l < "$site/site.sacct") - 1))
	echo
	echo "$kind: $(sed 's/^twinsite: //; s/ -> .*//' "$tmp/site.out") (bench/twinsite.py, seed 1)"
	: > "$tmp/new"
	: > "$tmp/old"
	for r in $(seq 1 "$n"); do
		for b in new ${b_here:+old}; do
			bin=$HETLAB
			[ "$b" = old ] && bin=$base
			if ! m=$(cpu_of "$bin" run "$site/twin-$b.json" --out "$site/run-$b.db" --quiet); then
				echo "twin-speed: $bin run $kind failed"
				exit 1
			fi
			echo "$m" >> "$tmp/$b"
		done
	done
	c=$(cut -d' ' -f1 "$tmp/new" | median)
	w=$(cut -d' ' -f2 "$tmp/new" | median)
	us=$(cut -d' ' -f3 "$tmp/new" | median)
	sy=$(cut -d' ' -f4 "$tmp/new" | median)
	speed=$(awk -v d="$days" -v c="$c" 'BEGIN { printf "%.0f", d * 86400 / c }')
	sim=$(sqlite3 "$site/run-new.db" "SELECT printf('%.1f', (max(end_us) - min(submit_us)) / 86400e6) FROM job" 2>/dev/null || echo '?')
	ran=$(sqlite3 "$site/run-new.db" "SELECT count(*) FROM job WHERE start_us IS NOT NULL" 2>/dev/null || echo '?')
	printf '  replay: CPU %.2f s (user %.2f + system %.2f), wall %.2f s, median of %s; %s of %s jobs ran, %s days simulated\n' \
		"$c" "$us" "$sy" "$w" "$n" "$ran" "$jobs" "$sim"
	met=met
	[ "$speed" -ge 100000 ] || met="NOT met"
	printf '  speed: %s days of history in %.2f CPU s = %sx real time; target 100,000x: %s\n' "$days" "$c" "$speed" "$met"
	if [ -n "$b_here" ]; then
		cb=$(cut -d' ' -f1 "$tmp/old" | median)
		printf '  base %s: CPU %.2f s; this build %.2fx faster in CPU time\n' "$base" "$cb" \
			"$(awk -v a="$cb" -v b="$c" 'BEGIN { print a / b }')"
	fi
	summary="$summary${summary:+, }$kind ${speed}x"
	verdict="$verdict${verdict:+, }$kind $met"
done
echo
echo "twin-speed: $summary (target 100,000x: $verdict)"
