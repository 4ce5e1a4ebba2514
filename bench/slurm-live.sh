#!/bin/sh
# bench/slurm-live.sh HETLAB [JOBS] — `hetlab live --executor slurm` on the
# real local Slurm cluster (tests/slurm/local-slurm.sh: six nodes of
# CPUS CPUs, default 16: 96 job slots), against Slurm's own figures
# measured in the same run. `make bench` calls it when Slurm can be started here; otherwise it
# prints how to get it and exits 77. Prints:
#
#   1. Slurm's own: the submit->start delay of plain `sbatch` jobs on free
#      nodes (one after another), and the starts per second of JOBS/2
#      plain jobs submitted 16 at a time (the cluster's own ceiling);
#   2. hetlab: JOBS (default 500) jobs of 1 core and 100 MiB, each writing
#      its own start time (date +%s.%N: sub-second; sacct's Start has 1 s
#      resolution and is shown beside it), submitted at once: starts per
#      second (start decisions turned into running jobs) and the p50/p90
#      delay from the start decision (the decision table) to the job
#      running, and the same beyond Slurm's own delay;
#   3. where the daemon's time goes: the same with every Slurm command
#      timed (JOBS/2 jobs, bindir pointing at timing wrappers);
#   4. the squeue payload per tick (bytes of squeue output the daemon reads,
#      and what squeue itself receives from slurmctld, by strace when it is
#      there) with 20 jobs running, first with few finished jobs remembered
#      by slurmctld, then with REMEMBERED (default 5000) finished jobs of
#      another name (MinJobAge=3600), beside what `squeue --json` of every
#      job would read.
#
# Slurm's RUNNING, to the millisecond, is read from slurmctld's log
# (bench/slurmlog.py): the moment it gave a job its nodes; the job's own
# first line comes once slurmd on the node has launched it.
#
# Medians and percentiles of one run; REMEMBERED=N sets the finished jobs
# of part 4 (slurmctld keeps at most MaxJobCount, 10000 by default);
# PARTS=12 runs parts 1 and 2 only (default 1234). EXPORT=minimal measures
# slurm.export "minimal" (default: "login", the configuration's default).
# WAVES=1 also prints the daemon's start passes (slurmlog.py waves). CPUS=4 measures the test cluster's own 24 slots; PARALLEL=N sets
# slurm.parallel (the Slurm commands run at once, default 16). LOCAL_SLURM_DIR=DIR uses
# a running cluster (started with LOCAL_SLURM_MINJOBAGE=3600 and
# LOCAL_SLURM_CPUS=CPUS). Holds /tmp/hetlab-slurm.lock throughout.
set -u
if [ -z "${HETLAB_SLURM_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	HETLAB_SLURM_LOCKED=1 exec flock /tmp/hetlab-slurm.lock sh "$0" "$@"
fi
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
HETLAB=${1:-build/hetlab}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
N=${2:-500}
NR=${REMEMBERED:-5000}
PARTS=${PARTS:-1234}
CPUS=${CPUS:-16}
how() {
	echo "slurm-live: $*"
	echo "  This benchmark runs a real six-node Slurm cluster on this host (tests/slurm/local-slurm.sh)."
	echo "  As root on Debian 12: apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server sqlite3 python3"
	echo "  then: make bench (or sh bench/slurm-live.sh build/hetlab)."
	exit 77
}
[ -x "$HETLAB" ] || how "$HETLAB not found"
[ "$(id -u)" = 0 ] || how "needs root (munged and slurmd run as root)"
for c in munged slurmctld slurmd slurmdbd mariadbd sbatch squeue scontrol sinfo scancel sacct sqlite3 python3; do
	command -v $c >/dev/null 2>&1 || how "$c not found"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-bench-slurm-XXXXXX") || exit 1
C=${LOCAL_SLURM_DIR:-$D/cluster}
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${LOCAL_SLURM_DIR:-}" ] || sh "$TOP/tests/slurm/local-slurm.sh" stop "$C" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ -z "${LOCAL_SLURM_DIR:-}" ] &&
	! msg=$(LOCAL_SLURM_MINJOBAGE=3600 LOCAL_SLURM_CPUS=$CPUS sh "$TOP/tests/slurm/local-slurm.sh" start "$C" 2>&1 </dev/null); then
	echo "$msg"
	echo "slurm-live: FAILED: the cluster did not start"
	exit 1
fi
. "$C/env"
export SLURM_CONF
BIN=$(dirname "$(command -v sbatch)")
cd "$D" || exit 1
mkdir -p base start1 start2 bin
now() { date +%s.%N; }
# p50 p90 of the numbers on stdin (one a line), in ms.
pct() { sort -n | awk '{v[NR] = $1} END {if (!NR) {print "none"; exit} i50 = int((NR - 1) * 0.5) + 1; i90 = int((NR - 1) * 0.9) + 1; printf "p50 %.0f ms, p90 %.0f ms (%d jobs)", v[i50] * 1000, v[i90] * 1000, NR}'; }
p50() { sort -n | awk '{v[NR] = $1} END {if (NR) printf "%.3f", v[int((NR - 1) * 0.5) + 1]; else print 0}'; }

echo "slurm-live: $(sinfo -h -o '%D nodes, %c CPUs each' | head -n 1), Slurm $(scontrol --version | cut -d' ' -f2), $(nproc) CPUs here, load $(cut -d' ' -f1 /proc/loadavg)"

# --- 1. Slurm's own -----------------------------------------------------------------
i=0
while [ $i -lt 40 ]; do
	t=$(now)
	sid=$(sbatch --parsable -p debug -N1 -c1 --mem=100 -J base -o /dev/null --wrap "date +%s.%N > $D/base/s$i")
	echo "$i $t ${sid%%;*}" >>base/submit
	i=$((i + 1))
	sleep 0.2
done
end=$(( $(date +%s) + 60 ))
while [ "$(ls base | grep -c '^s[0-9]')" -lt 40 ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
while read -r i t _; do [ -s "base/s$i" ] && awk -v a="$t" '{print $1 - a}' "base/s$i"; done <base/submit >base/lat
slurm_p50=$(p50 <base/lat)
echo "Slurm's own submit->start on free nodes (plain sbatch, one at a time): $(pct <base/lat)"
# Slurm's RUNNING, to the millisecond, from slurmctld's log (bench/slurmlog.py):
# the moment it gave a job its nodes; the batch script starts once slurmd
# has launched it.
ctldlog() { python3 "$HERE/slurmlog.py" "$C/log/slurmctld.log" | sort -k1,1; }
ctldlog >base/ctld
awk '{print $3, $2}' base/submit | sort -k1,1 | join - base/ctld | awk '$4 != "-" {print $4 - $2}' >base/runlat
slurm_run_p50=$(p50 <base/runlat)
echo "Slurm's own submit->RUNNING (sbatch called -> slurmctld's log), the same jobs: $(pct <base/runlat)"
M=$((N / 2))
t=$(now)
seq 0 $((M - 1)) | xargs -P 16 -I{} sbatch -Q -p debug,second -N1 -c1 --mem=100 -J thru -o /dev/null \
	--wrap "echo \$SLURM_JOB_ID \$(date +%s.%N) > $D/base/t{}" >/dev/null
end=$(( $(date +%s) + 300 ))
while [ "$(ls base | grep -c '^t[0-9]')" -lt $M ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
cat base/t[0-9]* | sort -k1,1 >base/plain
last=$(awk '{print $2}' base/plain | sort -n | tail -n 1)
slurm_rate=$(awk -v n="$(wc -l <base/plain)" -v a="$t" -v b="$last" 'BEGIN {printf "%.1f", n / (b - a)}')
echo "Slurm's own throughput: $M plain jobs submitted 16 at a time started at $slurm_rate/s"
ctldlog | join base/plain - | awk '$4 != "-"' >base/plain.run
lastrun=$(awk '{print $4}' base/plain.run | sort -n | tail -n 1)
slurm_run_rate=$(awk -v n="$(wc -l <base/plain.run)" -v a="$t" -v b="$lastrun" 'BEGIN {printf "%.1f", n / (b - a)}')
echo "  RUNNING in slurmctld's log at $slurm_run_rate/s; RUNNING -> the batch script's first line under that load: $(awk '{print $2 - $4}' base/plain.run | pct)"

# --- 2. and 3. hetlab ------------------------------------------------------------------
cat >scn.json <<EOF
{ "name": "bench-slurm", "seed": 1, "policy": "fcfs",
  "node_types": [ { "name": "c4", "cpu": "Xeon-6348", "sockets": 1, "cores": $CPUS, "mem_gib": 3 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "nodes": [ { "type": "c4", "count": 6, "names": ["n1", "n2", "n3", "n4", "n5", "n6"] } ] } ] }
EOF
config() {   # STATE BINDIR
	printf '{ "scenario": "scn.json", "executor": "slurm", "state_dir": "%s", "tick_s": 0.1, "probe_every_s": 5, "probes": "none",\n  "results_every_s": 0, "slurm": { "partition": ["debug", "second"], "bindir": "%s", "export": "%s", "parallel": %d } }\n' "$1" "$2" "${EXPORT:-login}" "${PARALLEL:-16}"
}
for c in sbatch scontrol scancel sinfo sacct squeue; do
	cat >"bin/$c" <<EOF
#!/bin/sh
s=\$(date +%s.%N)
o=\$(mktemp)
"$BIN/$c" "\$@" >"\$o"
rc=\$?
cat "\$o"
echo "$c \$s \$(date +%s.%N) \$(wc -c <"\$o") \$rc" >>"$D/cmdlog"
rm -f "\$o"
exit \$rc
EOF
	chmod 755 "bin/$c"
done
jobs() {   # COUNT DIR
	awk -v n="$1" -v d="$D/$2" 'BEGIN {for (i = 0; i < n; i++) printf "{\"name\": \"b%d\", \"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1, \"mem_mib\": 100}, \"argv\": [\"sh\", \"-c\", \"date +%%s.%%N > %s/$HETLAB_JOB_ID\"]}\n", i, d}'
}
# Runs COUNT jobs through a daemon on STATE with BINDIR; prints the figures.
run_hetlab() {   # STATE BINDIR COUNT DIR
	config "$1" "$2" >"$1.json"
	jobs "$3" "$4" >"$1.jsonl"
	"$HETLAB" submit --config "$1.json" "$1.jsonl" >/dev/null || { echo "slurm-live: FAILED: hetlab submit"; exit 1; }
	t=$(now)
	"$HETLAB" live --config "$1.json" --exit-when-idle --max-s 600 >"$1.log" 2>&1 &
	DPID=$!
	wait $DPID
	DPID=
	wall=$(awk -v a="$t" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')
	ep=$(sqlite3 -batch -noheader "$1/state.db" "SELECT value FROM meta WHERE key = 'epoch_unix_us'")
	sqlite3 -batch -noheader "$1/state.db" "SELECT job, min(t_us) FROM decision WHERE kind = 'start' GROUP BY job" |
		awk -F'|' -v ep="$ep" '{printf "%s %.6f\n", $1, (ep + $2) / 1e6}' >"$1.dec"
	while read -r j td; do
		[ -s "$4/$j" ] && awk -v a="$td" -v j="$j" '{printf "%s %.6f %.6f\n", j, a, $1}' "$4/$j"
	done <"$1.dec" >"$1.lat"
	done_n=$(sqlite3 -batch -noheader "$1/state.db" "SELECT count(*) FROM jobs WHERE state = 'done'")
	first=$(awk '{print $2}' "$1.lat" | sort -n | head -n 1)
	lastr=$(awk '{print $3}' "$1.lat" | sort -n | tail -n 1)
	lastd=$(awk '{print $2}' "$1.lat" | sort -n | tail -n 1)
	rate=$(awk -v n="$(wc -l <"$1.lat")" -v a="$first" -v b="$lastr" 'BEGIN {printf "%.1f", n / (b - a)}')
	drate=$(awk -v n="$(wc -l <"$1.lat")" -v a="$first" -v b="$lastd" 'BEGIN {printf "%.1f", n / (b - a)}')
	echo "  $done_n of $3 jobs done in $wall s; start decisions at $drate/s, running at $rate/s"
	echo "  start decision -> running (the job's own clock): $(awk '{print $3 - $2}' "$1.lat" | pct)"
	echo "  beyond Slurm's own delay ($(awk -v p="$slurm_p50" 'BEGIN {printf "%.0f", p * 1000}') ms): $(awk -v p="$slurm_p50" '{print $3 - $2 - p}' "$1.lat" | pct)"
	names=$(awk -v s="$(sqlite3 -batch -noheader "$1/state.db" "SELECT substr(value, 1, 8) FROM meta WHERE key = 'state_id'")" \
		'{printf "%shetlab-%s-%s", (NR > 1 ? "," : ""), s, $1}' "$1.lat")
	SLURM_TIME_FORMAT=%s sacct -n -X -P -S now-1hour --name="$names" --format=JobName,Start 2>/dev/null |
		awk -F'|' '{sub(/.*-/, "", $1); print $1, $2}' | sort -k1,1 >"$1.sacct"
	sort -k1,1 "$1.lat" | join - "$1.sacct" | awk '{print $4 - $2}' >"$1.sacctlat"
	echo "  start decision -> sacct Start (1 s resolution, so about 0.5 s less on average): $(pct <"$1.sacctlat")"
	# Slurm's RUNNING of each job's Slurm job, from slurmctld's log.
	sqlite3 -batch -noheader -separator ' ' "$1/state.db" "SELECT sid, job FROM xref" | sort -k1,1 >"$1.xref"
	ctldlog | join "$1.xref" - | awk '$4 != "-" {print $2, $4}' | sort -k1,1 >"$1.ctld"
	sort -k1,1 "$1.lat" | join - "$1.ctld" >"$1.runlat"   # job decision script-start RUNNING
	lastrun=$(awk '{print $4}' "$1.runlat" | sort -n | tail -n 1)
	run_rate=$(awk -v n="$(wc -l <"$1.runlat")" -v a="$first" -v b="$lastrun" 'BEGIN {printf "%.1f", n / (b - a)}')
	echo "  RUNNING in slurmctld's log at $run_rate/s; start decision -> RUNNING: $(awk '{print $4 - $2}' "$1.runlat" | pct)"
	echo "    beyond Slurm's own submit->RUNNING ($(awk -v p="$slurm_run_p50" 'BEGIN {printf "%.0f", p * 1000}') ms): $(awk -v p="$slurm_run_p50" '{print $4 - $2 - p}' "$1.runlat" | pct)"
	echo "    RUNNING -> the job's first line: $(awk '{print $3 - $4}' "$1.runlat" | pct)"
	[ -n "${WAVES:-}" ] && python3 "$HERE/slurmlog.py" waves "$C/log/slurmctld.log" "$1.xref" "$1.dec"
}
echo "hetlab live --executor slurm, $N jobs (1 core, 100 MiB, date > file), tick_s 0.1:"
run_hetlab st1 "$BIN" "$N" start1
hetlab_rate=$rate
hetlab_run_rate=$run_rate
targets() {
	echo "targets: >= 50 starts/s (RUNNING in Slurm at $hetlab_run_rate/s, the jobs' own first lines at $hetlab_rate/s;" \
		"Slurm's own ceiling on this host $slurm_run_rate/s and $slurm_rate/s), p50 decision->RUNNING under 1 s beyond Slurm's own delay"
}
case $PARTS in *3*) ;; *) targets; exit 0 ;; esac
echo "where the time goes ($M jobs again, every Slurm command timed through wrappers):"
: >cmdlog
run_hetlab st2 "$D/bin" "$M" start2
awk '{n[$1]++; t[$1] += $3 - $2} END {for (c in n) printf "  %-8s %5d calls, mean %5.0f ms, total %6.1f s\n", c, n[c], t[c] / n[c] * 1000, t[c]}' cmdlog | sort
awk -v a="$first" -v b="$lastd" '$1 == "sbatch" && $2 >= a && $2 <= b {s += $3 - $2} END {printf "  sbatch time over the decisions (%.1f s): %.1f s of command time in all, %d at a time at most by the config\n", b - a, s, 16}' cmdlog
cp cmdlog cmdlog.st2

# --- 4. squeue payload per tick ---------------------------------------------------------
payload() {   # LABEL
	: >cmdlog
	sleep 5
	awk '$1 == "squeue" {n++; b += $4; t += $3 - $2} END {printf "  %s: %d squeue calls in 5 s, %.0f bytes of output each, %.0f ms each", L, n, b / n, t / n * 1000}' L="$1" cmdlog
	if command -v strace >/dev/null 2>&1; then
		ids=$(sqlite3 -batch -noheader st3/state.db "SELECT group_concat(ref, ',') FROM jobs WHERE state = 'running'")
		rx=$(strace -f -e trace=read,recvfrom,recvmsg -o strace.out "$BIN/squeue" -h -t all -j "$ids" -O 'JobID:|,State:|' >/dev/null 2>&1;
			awk '/= [0-9]+$/ && !/\/(etc|usr|lib|proc|sys)/ {b += $NF} END {print b + 0}' strace.out)
		printf ", squeue receives %s bytes" "$rx"
	fi
	echo "; squeue --json of every job: $(squeue -h -t all --json 2>/dev/null | wc -c) bytes"
}
config st3 "$D/bin" >st3.json
awk 'BEGIN {for (i = 0; i < 20; i++) printf "{\"name\": \"w%d\", \"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1, \"mem_mib\": 100}, \"argv\": [\"sleep\", \"900\"]}\n", i}' >st3.jsonl
"$HETLAB" submit --config st3.json st3.jsonl >/dev/null
"$HETLAB" live --config st3.json >st3.log 2>&1 &
DPID=$!
end=$(( $(date +%s) + 60 ))
while [ "$(sqlite3 -batch -noheader st3/state.db "SELECT count(*) FROM jobs WHERE state = 'running'" 2>/dev/null)" != 20 ] &&
	[ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
echo "squeue payload per tick, the daemon with 20 jobs running ($(squeue -h -t all | wc -l) jobs known to slurmctld):"
payload "few finished jobs remembered"
t=$(now)
seq 1 "$NR" | xargs -P 8 -n 50 sh -c 'for i; do sbatch -Q -H -p debug -N1 -c1 --mem=100 -J other -o /dev/null --wrap true >/dev/null; done' sh
scancel -n other
echo "  ($NR held jobs of another name submitted and cancelled in $(awk -v a="$t" -v b="$(now)" 'BEGIN {printf "%.0f", b - a}') s; slurmctld now knows $(squeue -h -t all | wc -l) jobs)"
payload "$NR finished jobs remembered"
kill -TERM "$DPID"
wait "$DPID" 2>/dev/null
DPID=
scancel -n "$(sqlite3 -batch -noheader st3/state.db "SELECT group_concat(DISTINCT 'hetlab-' || substr((SELECT value FROM meta WHERE key = 'state_id'), 1, 8) || '-' || id) FROM jobs")" 2>/dev/null
targets
