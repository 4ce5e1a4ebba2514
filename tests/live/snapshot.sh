# Sourced by tests/live/run.sh (its helpers, in $T): the daemon snapshots
# its engine and a restart replays only the recording after the latest
# snapshot (LIVE.json snapshot_every, issue 31 item 2).
#
# 22. Thirteen jobs through an engine that holds four at once (every ended
#     job dropped at once, a snapshot after each compaction), the daemon
#     killed with kill -9 once a snapshot is on disk and restarted: it says
#     it restarts from the snapshot; every job runs once under its own id,
#     the jobs table has all thirteen done, results.db has every job, and
#     the replay of the whole recording makes the decisions the restored
#     daemon logged. Then the snapshot is corrupted (one byte changed): the
#     next start says so and replays the whole recording, with the same
#     outcome; a snapshot of another max_jobs is refused the same way.
#     The instant executor (jobs end at once, in the daemon) takes 300
#     jobs through a daemon that compacts and snapshots. With the latest
#     snapshot corrupt, a restart starts from the newest kept snapshot
#     that can be used (STATE_DIR/snapshots), and the replay proves what
#     the daemon then decided. hetlab replay
#     --from-snapshot proves the decisions after a snapshot, and finds one
#     changed in the log.

cfg snp ', "probes": "none", "max_jobs": 4, "keep_ended": 1, "snapshot_every": 1, "metrics": {"port": 0}'
{ job batch 1 snp 3; for i in $(seq 1 12); do job batch 1 snp 0.2; done; } >jobs-snp.jsonl
"$HETLAB" submit --config snp.json jobs-snp.jsonl >/dev/null
"$HETLAB" live --config snp.json -q 2>log-snp &
DAEMON=$!
for i in $(seq 1 200); do
	[ -s st-snp/snapshot ] && [ "$(q st-snp/state.db "SELECT count(*) FROM jobs WHERE state = 'done'" 2>/dev/null)" -ge 5 ] 2>/dev/null && break
	sleep 0.05
done
kill -9 "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
cp st-snp/snapshot snap-at-kill
done_then=$(q st-snp/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")
check_eq "snapshot: a snapshot was on disk when the daemon was killed, some jobs done" \
	"$([ -s st-snp/snapshot ] && [ "$done_then" -ge 5 ] && echo yes)" yes
timeout 60 "$HETLAB" live --config snp.json --exit-when-idle 2>log-snp2
check_eq "snapshot: the restarted daemon exits when idle" $? 0
check_eq "snapshot: it restarted from the snapshot, not the whole recording" \
	"$(grep -c 'restarting from the snapshot at the recording.s row [1-9]' log-snp2)" 1
check_eq "snapshot: every job done, under its own id" \
	"$(q st-snp/state.db "SELECT group_concat(id || ':' || state, ' ') FROM jobs ORDER BY id")" \
	"0:done 1:done 2:done 3:done 4:done 5:done 6:done 7:done 8:done 9:done 10:done 11:done 12:done"
check_eq "snapshot: every job started once, as its own id" "$(cut -d' ' -f1 starts-snp | sort -n | tr '\n' ' ')" \
	"0 1 2 3 4 5 6 7 8 9 10 11 12 "
check_eq "snapshot: results.db has every job" "$(q st-snp/results.db "SELECT count(*) FROM job")" 13
replay_same snapshot snp
# hetlab replay --from-snapshot, from the snapshot the killed daemon left:
# the decisions after it, made by the restarted daemon, are proved.
cp st-snp/snapshot snap-last
cp snap-at-kill st-snp/snapshot
out=$("$HETLAB" replay --from-snapshot st-snp 2>&1)
check_eq "snapshot: replay --from-snapshot makes the same decisions after it" \
	"$?,$(printf '%s\n' "$out" | grep -c 'decisions logged live after the snapshot; the replay makes the same decisions')" "0,1"
check_eq "snapshot: the decisions after the snapshot are some, not all" \
	"$(printf '%s\n' "$out" | sed -n 's/^hetlab replay: \([0-9]*\) decisions.*/\1/p' | awk -v all="$(q st-snp/state.db "SELECT count(*) FROM decision")" '{ print ($1 > 0 && $1 < all) }')" 1
cp snap-last st-snp/snapshot
# A corrupt snapshot and no kept one (STATE_DIR/snapshots, below): said,
# and the whole recording replayed.
rm -rf st-snp/snapshots
jobs_before=$(q st-snp/state.db "SELECT group_concat(id || ':' || state || ':' || start_us || ':' || end_us, ' ') FROM jobs ORDER BY id")
python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x20; open(p, 'wb').write(b)" st-snp/snapshot
timeout 60 "$HETLAB" live --config snp.json --exit-when-idle 2>log-snp3
check_eq "snapshot: a daemon on a corrupt snapshot runs" $? 0
check_eq "snapshot: it says the snapshot is corrupt and replays the whole recording" \
	"$(grep -c 'snapshot not used (.*checksum does not match.*): replaying the whole recording' log-snp3)" 1
check_eq "snapshot: the full replay comes to the same jobs table" \
	"$(q st-snp/state.db "SELECT group_concat(id || ':' || state || ':' || start_us || ':' || end_us, ' ') FROM jobs ORDER BY id")" \
	"$jobs_before"
# The last start wrote a good snapshot again; one made with another
# max_jobs is refused, the recording replayed.
sed 's/"max_jobs": 4/"max_jobs": 5/' snp.json >snp5.json
rm -rf st-snp/snapshots
timeout 60 "$HETLAB" live --config snp5.json --exit-when-idle 2>log-snp4
check_eq "snapshot: one made with another max_jobs is refused, saying why" \
	"$(grep -c 'snapshot not used (.*another scenario, policy, executor or max_jobs): replaying the whole recording' log-snp4)" 1

# The instant executor (benchmarks): 300 jobs end at once in the daemon,
# which still records, decides, logs, compacts and snapshots as with any
# executor; a restart from its snapshot, and the replay agrees.
printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-ins", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "snapshot_every": 5 }\n' >ins.json
for i in $(seq 1 300); do job batch 1 ins 0; done >jobs-ins.jsonl
"$HETLAB" submit --config ins.json jobs-ins.jsonl >/dev/null
timeout 60 "$HETLAB" live --config ins.json --exit-when-idle -q 2>log-ins
check_eq "instant: the daemon runs every job and exits when idle" \
	"$?,$(q st-ins/state.db "SELECT count(*) FROM jobs WHERE state = 'done'"),$(q st-ins/state.db "SELECT count(*) FROM jobs")" "0,300,300"
check_eq "instant: nothing was launched" "$(cat starts-ins 2>/dev/null | wc -l)" 0
check_eq "instant: it left a snapshot" "$([ -s st-ins/snapshot ] && echo yes)" yes
timeout 60 "$HETLAB" live --config ins.json --exit-when-idle 2>log-ins2
check_eq "instant: a restart starts from the snapshot" \
	"$?,$(grep -c 'restarting from the snapshot at the recording.s row [1-9]' log-ins2)" "0,1"
replay_same instant ins
# The latest snapshot corrupt, the kept ones (one at each snapshot) good:
# the restart says so and starts from the newest kept one, not the whole
# recording; with the newest kept one corrupt too, from the one before it.
# Jobs submitted then run once, and the replay of the whole recording
# makes the decisions the daemons restored from kept snapshots logged.
corrupt() { python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x20; open(p, 'wb').write(b)" "$1"; }
printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-ink", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "snapshot_every": 5, "snapshot_keep": 5, "snapshot_keep_every_s": 0 }\n' >ink.json
"$HETLAB" submit --config ink.json jobs-ins.jsonl >/dev/null
timeout 60 "$HETLAB" live --config ink.json --exit-when-idle -q 2>log-ink
newest=$(ls st-ink/snapshots | tail -n 1)
corrupt st-ink/snapshot
for i in $(seq 1 20); do job batch 1 ink 0; done >jobs-ink2.jsonl
"$HETLAB" submit --config ink.json jobs-ink2.jsonl >/dev/null
timeout 60 "$HETLAB" live --config ink.json --exit-when-idle 2>log-ink2
check_eq "kept: with the latest snapshot corrupt, the restart starts from the newest kept one" \
	"$?,$(grep -c 'snapshot not used (.*checksum does not match.*): trying the 5 kept in .*st-ink/snapshots, newest first' log-ink2),$(grep -c "restarting from the kept snapshot .*st-ink/snapshots/$newest at the recording.s row [1-9]" log-ink2),$(grep -c 'replaying the whole recording' log-ink2)" \
	"0,1,1,0"
check_eq "kept: the jobs submitted then ran, each once" \
	"$(q st-ink/state.db "SELECT count(*) FROM jobs WHERE state = 'done'"),$(cat starts-ink 2>/dev/null | wc -l)" "320,0"
replay_same "kept: restored from the newest kept snapshot" ink
newest=$(ls st-ink/snapshots | tail -n 1)
second=$(ls st-ink/snapshots | tail -n 2 | head -n 1)
corrupt st-ink/snapshot
corrupt "st-ink/snapshots/$newest"
"$HETLAB" submit --config ink.json jobs-ink2.jsonl >/dev/null
timeout 60 "$HETLAB" live --config ink.json --exit-when-idle 2>log-ink3
check_eq "kept: with the newest kept one corrupt too, from the one before it" \
	"$?,$(grep -c "kept snapshot not used (.*st-ink/snapshots/$newest: its checksum does not match" log-ink3),$(grep -c "restarting from the kept snapshot .*st-ink/snapshots/$second at" log-ink3),$(q st-ink/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" \
	"0,1,1,340"
replay_same "kept: restored from an older kept snapshot" ink

# A decision after the snapshot changed in the log: replay --from-snapshot
# finds it (exit 1); a state without a snapshot is an error.
cp snap-at-kill st-snp/snapshot
q st-snp/state.db "UPDATE decision SET node = node + 1 WHERE seq = (SELECT max(seq) FROM decision WHERE kind = 'start')"
"$HETLAB" replay --from-snapshot st-snp >out-snpx 2>&1
check_eq "snapshot: replay --from-snapshot finds a decision changed after it" \
	"$?,$(grep -c 'DIFFERS' out-snpx)" "1,1"
rm st-snp/snapshot
"$HETLAB" replay --from-snapshot st-snp >out-snpy 2>&1
check_eq "snapshot: replay --from-snapshot of a state without one says so" \
	"$?,$(grep -c 'the snapshot cannot be used: the state has none' out-snpy)" "1,1"
