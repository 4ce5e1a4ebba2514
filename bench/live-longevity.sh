#!/bin/sh
# bench/live-longevity.sh HETLAB [N...] — what a live daemon costs as its
# state's history grows (issue 31 item 2). For each N (default 1000 3000
# 10000), N jobs of `true` (one core each) go through `hetlab live` with the
# local executor on 8 nodes of 8 cores (tick 10 ms), submitted in batches
# of 200 while it runs, so that at most a few hundred are alive at once;
# once with ended jobs dropped from the engine (keep_ended 100) and once
# keeping every job (keep_ended 0). Then a daemon restarted on the finished
# state. Prints for each N and mode:
#   - rss: the daemon's largest resident memory while it ran (VmRSS, read
#     after every batch; the results.db it writes on the way out is not in
#     it), MiB;
#   - cpu/job: the daemon's CPU time (user + system) per job, and its wall
#     time;
#   - restart: wall and CPU time of a daemon started on the finished state
#     (from its last snapshot, the recording after it replayed), from exec
#     to its loop ("jobs recovered", polled every 5 ms), and its peak
#     memory (VmHWM) then;
#   - state: the size of state.db, and request: what of it is the table
#     of submissions remembered for retries (a row a submission, kept a
#     day of wall-clock time: bounded by a day's submissions, not by the
#     history, but a run of minutes never ages one out); the ratio line
#     gives the state's growth with and without it.
#   - snap: the size of the daemon's last snapshot (STATE_DIR/snapshot,
#     docs/live.md "Snapshots"), which the restart loads before it replays
#     the recording after it.
# The last lines give the ratio of the largest N's figure to the smallest
# N's for each, the bounded daemon's target being at most 1.5x.
# BENCH_EXECUTOR=instant takes the jobs through the instant executor (they
# end at once, in the daemon: the rest of its path is the real one), for
# points the local executor's ~250 jobs/s cannot reach; BENCH_MODES the
# keep_ended values to run (default "100 0": dropped and kept);
# BENCH_BATCH the jobs per submission (default 200).
# BENCH_PRUNE=1 runs `hetlab state-prune STATE --keep-days 0` after each
# batch has ended (a snapshot kept at each snapshot, 4 kept: the rows up to
# the latest kept one archived into STATE_DIR/archive, docs/live.md
# "Retention and archive"), and adds the prunes' total wall and CPU time
# (through build/bench/cputime beside HETLAB) and the archives' size; the
# state's size is then the window's. The restart is of the pruned state.
# BENCH_PRUNE=auto lets the daemon prune itself instead (prune_keep_days 0,
# every BENCH_PRUNE_EVERY seconds, default 2; docs/live.md "Retention and
# archive"): the prune columns are then the daemon's children's CPU
# (its prunes, and its forecasts) and the archives' size.
# BENCH_RESULTS_EVERY=S sets results_every_s to S (default 0: results.db
# written only when the daemon stops) and adds what one write of results.db
# costs at the end of each point: the daemon's own write as it stops (the
# whole recording replayed into a fresh engine and written, archives
# included; docs/live.md "Retention and archive"), its wall time from the
# SIGTERM to the exit and its CPU time (the daemon's, read every 10 ms
# until it exits, less what it had used before the SIGTERM). Every
# periodic write costs that much at that point of the history.
set -u
HETLAB=$1
shift
POINTS=${*:-1000 3000 10000}
B=${BENCH_BATCH:-200}
EX=${BENCH_EXECUTOR:-local}
MODES=${BENCH_MODES:-100 0}
PRUNE=${BENCH_PRUNE:-0}
PEVERY=${BENCH_PRUNE_EVERY:-2}
RESEVERY=${BENCH_RESULTS_EVERY:-}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
CT=$(dirname "$HETLAB")/bench/cputime
if [ "$PRUNE" = 1 ] && [ ! -x "$CT" ]; then
	echo "live-longevity: BENCH_PRUNE=1 needs $CT (make $CT)"
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-longevity-XXXXXX")
trap 'kill -9 $D 2>/dev/null; rm -rf "$T"' EXIT
D=
cd "$T" || exit 1
cat >scn.json <<'EOF'
{ "name": "bench-longevity", "seed": 1, "policy": "easy",
  "node_types": [ { "name": "cpu8", "cpu": "Xeon-6348", "sockets": 1, "cores": 8, "mem_gib": 32 } ],
  "racks": [ { "name": "r1", "power_kw": 40, "nodes": [ { "type": "cpu8", "count": 8 } ] } ] }
EOF
awk -v n="$B" 'BEGIN { for (k = 0; k < n; k++) print "{\"class\": \"batch\", \"req\": {\"nodes\": 1, \"cores\": 1}, \"argv\": [\"true\"]}" }' >batch.jsonl
q() { sqlite3 -batch -noheader "$1" "$2" 2>/dev/null; }
# the jobs done: in the state's jobs table and in its archives (pruned);
# an archive counts once the cut past it is recorded (its jobs have then
# left the state's table)
count_archives() {
	cutp=$(q "$1/state.db" "SELECT value FROM meta WHERE key = 'pruned_seq'")
	for a in "$1"/archive/0*-0*; do
		case $a in *.tmp) continue ;; esac
		[ -d "$a" ] && ! grep -q "^$a " counted 2>/dev/null || continue
		[ "$(basename "$a" | cut -d- -f2 | sed 's/^0*//')" -le "${cutp:-0}" ] || continue
		echo "$a $(q "$a/state.db" "SELECT count(*) FROM jobs WHERE state = 'done'")" >>counted
	done
}
# (in a subshell: what it counted is kept in the file counted)
done_of() {
	[ "$PRUNE" = 0 ] || count_archives "$1"
	echo $(($(q "$1/state.db" "SELECT count(*) FROM jobs WHERE state = 'done'") + $(awk '{ k += $2 } END { print k + 0 }' counted)))
}
cpu_of() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat" 2>/dev/null; }
rss_of() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
: >rows
for n in $POINTS; do
	for keep in $MODES; do
		st=st-$n-$keep
		maxj=100000
		[ "$keep" -eq 0 ] && [ "$n" -gt 90000 ] && maxj=$((n + B))
		extra=
		[ "$PRUNE" = 0 ] || extra=', "snapshot_keep": 4, "snapshot_keep_every_s": 0'
		[ "$PRUNE" = auto ] && extra="$extra, \"prune_keep_days\": 0, \"prune_every_s\": $PEVERY"
		printf '{ "scenario": "scn.json", "executor": "%s", "state_dir": "%s", "tick_s": 0.01, "probes": "none", "results_every_s": %s, "keep_ended": %d, "max_jobs": %d%s }\n' \
			"$EX" "$st" "${RESEVERY:-0}" "$keep" "$maxj" "$extra" >c.json
		: >prunes
		: >counted
		"$HETLAB" live --config c.json -q 2>log &
		D=$!
		for i in $(seq 1 100); do [ -S "$st/hetlab.sock" ] && break; sleep 0.05; done
		t0=$(date +%s.%N)
		sent=0 rss=0
		while [ "$sent" -lt "$n" ]; do
			"$HETLAB" submit --config c.json batch.jsonl >/dev/null || exit 1
			sent=$((sent + B))
			# wait until at most one batch is alive
			while :; do
				d=$(done_of "$st")
				[ "${d:-0}" -ge $((sent - B)) ] && break
				sleep 0.02
			done
			r=$(rss_of "$D")
			[ "${r:-0}" -gt "$rss" ] && rss=$r
			if [ "$PRUNE" = 1 ]; then
				"$CT" pt "$HETLAB" state-prune "$st" --keep-days 0 -q || { echo "live-longevity: state-prune failed"; exit 1; }
				cat pt >>prunes
			fi
		done
		while [ "$(done_of "$st")" -lt "$n" ]; do sleep 0.02; done
		t1=$(date +%s.%N)
		r=$(rss_of "$D")
		[ "${r:-0}" -gt "$rss" ] && rss=$r
		cpu=$(cpu_of "$D")
		[ "$PRUNE" = auto ] && awk '{ printf "0 %s\n", ($16 + $17) / 100 }' "/proc/$D/stat" >prunes
		# the write of results.db as it stops: its CPU, the last read
		# before the exit
		w0=$(date +%s.%N)
		kill -TERM "$D"
		wcpu=$cpu
		while c=$(cpu_of "$D") && [ -n "$c" ]; do
			wcpu=$c
			grep -q '^State:[[:space:]]*Z' "/proc/$D/status" 2>/dev/null && break
			sleep 0.01
		done
		wait "$D"
		w1=$(date +%s.%N)
		D=
		# The restart: from exec to the loop (its "recovered" line), its
		# CPU and peak memory then; killed before it writes results.db.
		rm -f log2   # (the last point's, read before the new one's redirect truncates it)
		r0=$(date +%s.%N)
		"$HETLAB" live --config c.json 2>log2 &
		D=$!
		while ! grep -q 'jobs recovered' log2 2>/dev/null; do
			kill -0 "$D" 2>/dev/null || { echo "live-longevity: the restart failed: $(tail -1 log2)"; exit 1; }
			sleep 0.005
		done
		r1=$(date +%s.%N)
		rcpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$D/stat")
		hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$D/status")
		kill -9 "$D"
		wait "$D" 2>/dev/null
		D=
		size=$(stat -c %s "$st/state.db")
		# the submissions remembered for retries (table request: a row a
		# submission, kept a day of wall-clock time, docs/live.md), which a
		# run of minutes never ages out
		req=$(q "$st/state.db" "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ('request', 'sqlite_autoindex_request_1')")
		snap=$(stat -c %s "$st/snapshot" 2>/dev/null || echo 0)
		pw=$(awk '{ w += $1; c += $2 } END { printf "%.3f %.3f", w, c }' prunes)
		arch=$(du -sb "$st/archive" 2>/dev/null | cut -f1)
		echo "$n $keep $rss $cpu $t0 $t1 $(echo "$r0 $r1" | awk '{ print $2 - $1 }') $rcpu 0 $hwm $size $snap $pw ${arch:-0} $(echo "$w0 $w1 $cpu $wcpu" | awk '{ print $2 - $1, $4 - $3 }') ${req:-0}" >>rows
		rm -rf "$st"
	done
done
what=$([ "$EX" = local ] && echo "jobs of \`true\`" || echo "jobs ending at once")
pr=$([ "$PRUNE" = 1 ] && echo ", state-prune after each batch" || true)
[ "$PRUNE" = auto ] && pr=", the daemon pruning itself every $PEVERY s"
[ -n "$RESEVERY" ] && pr="$pr, results_every_s $RESEVERY"
echo "live longevity ($EX executor, $what on 8 x 8 cores, submitted $B at a time, tick 10 ms$pr)"
printf '%9s %-13s %9s %12s %9s %14s %14s %12s %10s %11s %9s' jobs ended rss_MiB cpu/job_ms wall_s restart_wall_s restart_cpu_s restart_MiB state_MiB request_KiB snap_KiB
[ "$PRUNE" = 1 ] && printf ' %12s %11s %12s' prune_wall_s prune_cpu_s archive_MiB
[ "$PRUNE" = auto ] && printf ' %12s %12s' child_cpu_s archive_MiB
[ -n "$RESEVERY" ] && printf ' %15s %14s' results_wall_s results_cpu_s
printf '\n'
awk -v prune="$PRUNE" -v res="$RESEVERY" '{
	mode = $2 > 0 ? "dropped" : "kept"
	printf "%9d %-13s %9.1f %12.3f %9.1f %14.3f %14.3f %12.1f %10.1f %11.1f %9.1f", $1, mode, $3 / 1024, $4 / $1 * 1000,
	       $6 - $5, $7, $8 + $9, $10 / 1024, $11 / 1048576, $18 / 1024, $12 / 1024
	if (prune == 1)
		printf " %12.3f %11.3f %12.1f", $13, $14, $15 / 1048576
	if (prune == "auto")
		printf " %12.3f %12.1f", $14, $15 / 1048576
	if (res != "")
		printf " %15.3f %14.3f", $16, $17
	printf "\n"
}' rows
awk 'NR == 1 { n0 = $1 } { last = $1 }
     $1 == n0 { r0[$2] = $3; c0[$2] = $4 / $1; w0[$2] = $7; u0[$2] = $8; h0[$2] = $10; s0[$2] = $11; q0[$2] = $11 - $18 }
     $1 == last { r1[$2] = $3; c1[$2] = $4 / $1; w1[$2] = $7; u1[$2] = $8; h1[$2] = $10; s1[$2] = $11; q1[$2] = $11 - $18 }
     END {
	for (k in r0) {
		mode = k > 0 ? "dropped" : "kept"
		printf "%s, %d to %d jobs: rss %.2fx, cpu/job %.2fx, restart %.2fx (cpu %.2fx, memory %.2fx), state %.2fx (%.2fx less the request table)\n",
		       mode, n0, last, r1[k] / r0[k], c1[k] / c0[k], w1[k] / w0[k], (u0[k] > 0 ? u1[k] / u0[k] : 0),
		       h1[k] / h0[k], s1[k] / s0[k], (q0[k] > 0 ? q1[k] / q0[k] : 0)
	}
}' rows | sort
[ -n "$RESEVERY" ] && awk 'NR == 1 { n0 = $1 } { last = $1 }
     $1 == n0 { w0[$2] = $16; c0[$2] = $17 }
     $1 == last { w1[$2] = $16; c1[$2] = $17 }
     END {
	for (k in w0)
		printf "%s, %d to %d jobs: one write of results.db %.2fx wall, %.2fx CPU\n", (k > 0 ? "dropped" : "kept"),
		       n0, last, (w0[k] > 0 ? w1[k] / w0[k] : 0), (c0[k] > 0 ? c1[k] / c0[k] : 0)
}' rows | sort
