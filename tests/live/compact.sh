# Sourced by tests/live/run.sh (its helpers, in $T): ended jobs leave the
# engine's tables (LIVE.json keep_ended, issue 31 item 2).
#
# 21. Thirteen jobs through an engine that holds four at once, every ended
#     job dropped at once (keep_ended 1), the first job long (it outlives
#     the ones after it, so the ids left are not a prefix), the daemon
#     killed with kill -9 half-way and restarted: every job runs once under
#     its own id (HETLAB_JOB_ID), the jobs table has all thirteen, a cancel
#     of a job that has left changes nothing, the replay makes the same
#     decisions, and the metrics' wait histogram still counts every job.

cfg cmp ', "probes": "none", "max_jobs": 4, "keep_ended": 1, "metrics": {"port": 0}'
{ job batch 1 cmp 3; for i in $(seq 1 12); do job batch 1 cmp 0.2; done; } >jobs-cmp.jsonl
"$HETLAB" submit --config cmp.json jobs-cmp.jsonl >/dev/null
"$HETLAB" live --config cmp.json -q 2>log-cmp &
DAEMON=$!
for i in $(seq 1 100); do
	[ "$(q st-cmp/state.db "SELECT count(*) FROM jobs WHERE state = 'done'" 2>/dev/null)" -ge 5 ] 2>/dev/null && break
	sleep 0.05
done
kill -9 "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
done_then=$(q st-cmp/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")
"$HETLAB" cancel --config cmp.json 1 >/dev/null 2>&1
timeout 60 "$HETLAB" live --config cmp.json --exit-when-idle -q 2>log-cmp2
check_eq "compact: the restarted daemon exits when idle" $? 0
check_eq "compact: killed after some jobs ended (more than the four held at once)" "$([ "$done_then" -ge 5 ] && echo yes)" yes
check_eq "compact: every job done, under its own id" \
	"$(q st-cmp/state.db "SELECT group_concat(id || ':' || state, ' ') FROM jobs ORDER BY id")" \
	"0:done 1:done 2:done 3:done 4:done 5:done 6:done 7:done 8:done 9:done 10:done 11:done 12:done"
check_eq "compact: every job started once, as its own id" "$(cut -d' ' -f1 starts-cmp | sort -n | tr '\n' ' ')" \
	"0 1 2 3 4 5 6 7 8 9 10 11 12 "
check_eq "compact: the cancel of a job that had left was taken and changed nothing" \
	"$(q st-cmp/state.db "SELECT count(*) FROM rec WHERE kind = 'cancel' AND job = 1"),$(q st-cmp/state.db "SELECT reason FROM jobs WHERE id = 1")" "1,"
check_eq "compact: hetlab queue --all lists all thirteen" "$("$HETLAB" queue --config cmp.json --all 2>/dev/null | grep -c ' done ')" 13
check_eq "compact: results.db has every job" "$(q st-cmp/results.db "SELECT count(*) FROM job")" 13
replay_same compact cmp
# The metrics of a daemon on the finished state: the waits of the jobs that
# left are counted (13), the jobs held none.
timeout 30 "$HETLAB" live --config cmp.json --max-s 1.5 2>log-cmp3 &
DAEMON=$!
for i in $(seq 1 50); do port=$(port_of log-cmp3); [ -n "$port" ] && break; sleep 0.1; done
m=$(fetch /metrics)
wait "$DAEMON"
DAEMON=
check_eq "compact: the wait histogram counts every job" \
	"$(printf '%s\n' "$m" | sed -n 's/^hetlab_job_wait_seconds_count \([0-9]*\).*/\1/p')" 13
