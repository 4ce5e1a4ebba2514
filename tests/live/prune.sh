# Sourced by tests/live/run.sh (its helpers, in $T): snapshots kept at
# points in time, and `hetlab state-prune`, which archives a state's old
# history beside it (issue 31 item 2: a bounded state.db).
#
# 23. 300 jobs through the instant executor, a snapshot kept at each
#     snapshot (snapshot_keep_every_s 0), ten kept: `hetlab replay
#     --snapshot` from the first, a middle and the last kept proves the
#     decisions of the window after it. `hetlab state-prune --before` at
#     the fourth kept one archives the rows before it
#     (STATE_DIR/archive/FROM-TO) and deletes them from state.db; the
#     replay of the whole state (archives first) and of the archive each
#     make the same decisions, results.db rebuilt is the same, a second
#     prune's archive is proved from the snapshot it starts at. A kill -9
#     after each of the prune's steps (5: amid the deletes) loses nothing: the replay and the
#     results stay the same, and the prune run again completes. A restart
#     after the prune starts from the snapshot; with a corrupt snapshot it
#     replays the archives and the state; with an archive missing too it
#     stops, naming the rows and the archive directory. Only the state's
#     owner prunes (run as root: a state chowned to nobody is refused),
#     and one prune at a time.

printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-prn", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "snapshot_every": 5, "snapshot_keep": 10, "snapshot_keep_every_s": 0 }\n' >prn.json
for i in $(seq 1 300); do job batch 1 prn 0; done >jobs-prn.jsonl
"$HETLAB" submit --config prn.json jobs-prn.jsonl >/dev/null
timeout 60 "$HETLAB" live --config prn.json --exit-when-idle -q 2>log-prn
check_eq "prune: the daemon runs 300 jobs" "$?,$(q st-prn/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" "0,300"
check_eq "prune: ten snapshots kept" "$(ls st-prn/snapshots | grep -c '^[0-9-]*\.snap$')" 10
kept() { ls st-prn/snapshots | sed -n "$1p"; }
for k in 1 5 10; do
	out=$("$HETLAB" replay st-prn --snapshot "st-prn/snapshots/$(kept $k)" 2>&1)
	check_eq "prune: replay --snapshot from kept snapshot $k proves the window after it" \
		"$?,$(printf '%s\n' "$out" | grep -c 'after the snapshot; the replay makes the same decisions')" "0,1"
done
jobsum() { q "$1" "SELECT * FROM job ORDER BY 1" | md5sum; }
"$HETLAB" replay st-prn --results res-prn0.db -q >/dev/null
sum0=$(jobsum res-prn0.db)
check_eq "prune: results.db has every job" "$(q res-prn0.db "SELECT count(*) FROM job")" 300
ndec=$(q st-prn/state.db "SELECT count(*) FROM decision")
epoch=$(q st-prn/state.db "SELECT value FROM meta WHERE key = 'epoch_unix_us'")
# --before: the kept snapshot's wall time (epoch + its engine time)
at() { awk -v e="$epoch" -v t="$(kept "$1" | cut -d- -f3 | cut -d. -f1)" 'BEGIN { printf "@%.6f", (e + t) / 1e6 }'; }
"$HETLAB" state-prune st-prn --before 2026-13-01 >/dev/null 2>&1
check_eq "prune: a bad date is a usage error" $? 2
cp -a st-prn st-prn-orig
out=$("$HETLAB" state-prune st-prn --before "$(at 4)")
check_eq "prune: state-prune archives the rows before the kept snapshot" \
	"$?,$(printf '%s\n' "$out" | grep -c 'archived to st-prn/archive/000000000001-')" "0,1"
A1=$(ls -d st-prn/archive/0*-0* | head -n 1)
cut=$(q st-prn/state.db "SELECT value FROM meta WHERE key = 'pruned_seq'")
check_eq "prune: the archived rows left state.db" \
	"$(q st-prn/state.db "SELECT count(*) FROM rec WHERE seq < $cut"),$(q "$A1/state.db" "SELECT min(seq) || '-' || max(seq) FROM rec")" \
	"0,1-$cut"
check_eq "prune: the archived window's ended jobs left the jobs table" \
	"$(q st-prn/state.db "SELECT count(*) FROM jobs") $(q "$A1/state.db" "SELECT count(*) FROM jobs")" \
	"$((300 - $(q "$A1/state.db" "SELECT count(*) FROM jobs"))) $(q "$A1/state.db" "SELECT count(*) FROM jobs")"
replay_same "prune: the pruned state (archives first)" prn
out=$("$HETLAB" replay "$A1" 2>&1)
check_eq "prune: the archive's replay makes its decisions" \
	"$?,$(printf '%s\n' "$out" | grep -c 'the replay makes the same decisions')" "0,1"
"$HETLAB" replay st-prn --results res-prn1.db -q >/dev/null
check_eq "prune: results.db rebuilt after the prune is the same" "$(jobsum res-prn1.db)" "$sum0"
check_eq "prune: the audit log of that results.db verifies" "$("$HETLAB" audit verify res-prn1.db >/dev/null 2>&1; echo $?)" 0
out=$("$HETLAB" state-prune st-prn --before "$(at 4)")
check_eq "prune: nothing more to prune at the same cutoff" "$?,$(printf '%s\n' "$out" | grep -c 'nothing to prune')" "0,1"
flock st-prn/archive/prune.lock "$HETLAB" state-prune st-prn --before "$(at 8)" >/dev/null 2>out-prl
check_eq "prune: a second prune while one runs is refused" \
	"$?,$(grep -c 'another hetlab state-prune is running' out-prl)" "1,1"
"$HETLAB" state-prune st-prn --before "$(at 8)" >/dev/null
A2=$(ls -d st-prn/archive/0*-0* | sed -n 2p)
out=$("$HETLAB" replay "$A2" --from-snapshot 2>&1)
check_eq "prune: the second archive is proved from the snapshot it starts at" \
	"$?,$(printf '%s\n' "$out" | grep -c 'after the snapshot; the replay makes the same decisions')" "0,1"
out=$("$HETLAB" replay st-prn --snapshot st-prn/archive/start-*.snap 2>&1)
check_eq "prune: the state's window is proved from the snapshot at the cut" \
	"$?,$(printf '%s\n' "$out" | grep -c 'after the snapshot; the replay makes the same decisions')" "0,1"
replay_same "prune: after two prunes" prn
"$HETLAB" replay st-prn --results res-prn2.db -q >/dev/null
check_eq "prune: results.db after two prunes is the same" "$(jobsum res-prn2.db)" "$sum0"
check_eq "prune: state.db holds fewer rows" \
	"$(q st-prn/state.db "SELECT (SELECT count(*) FROM decision) < $ndec")" 1

# A kill -9 at each step: nothing lost, the prune completes when run again.
for k in 1 2 3 4 5; do
	rm -rf st-prk
	cp -a st-prn-orig st-prk
	sed 's/st-prn/st-prk/' prn.json >prk.json
	HETLAB_TEST_PRUNE_KILL=$k "$HETLAB" state-prune st-prk --before "$(at 4)" >/dev/null 2>&1
	rc=$?
	out=$("$HETLAB" replay st-prk --results res-prk.db 2>&1 | tail -n 1)
	check_eq "prune: killed at step $k ($rc): the replay and results.db are whole" \
		"$rc,$(printf '%s' "$out" | grep -c 'makes the same decisions'),$(jobsum res-prk.db)" "137,1,$sum0"
	"$HETLAB" state-prune st-prk --before "$(at 4)" >/dev/null 2>&1
	check_eq "prune: killed at step $k: run again, it completes" \
		"$?,$(ls -d st-prk/archive/0*-0* | wc -l),$(ls st-prk/archive | grep -c '^start-'),$(q st-prk/state.db "SELECT count(*) > 1 FROM rec WHERE seq <= $cut")" "0,1,1,0"
	out=$("$HETLAB" replay st-prk --results res-prk.db 2>&1 | tail -n 1)
	check_eq "prune: killed at step $k: then the replay and results.db are whole" \
		"$(printf '%s' "$out" | grep -c 'makes the same decisions'),$(jobsum res-prk.db)" "1,$sum0"
done

# Restarts after the prune.
job batch 1 prn 0 >jobs-prn2.jsonl
"$HETLAB" submit --config prn.json jobs-prn2.jsonl >/dev/null
timeout 60 "$HETLAB" live --config prn.json --exit-when-idle 2>log-prn2
check_eq "prune: a restart after the prune starts from the snapshot" \
	"$?,$(grep -c 'restarting from the snapshot' log-prn2)" "0,1"
python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x20; open(p, 'wb').write(b)" st-prn/snapshot
mv "$A2" arch-away
"$HETLAB" submit --config prn.json jobs-prn2.jsonl >/dev/null
timeout 60 "$HETLAB" live --config prn.json --exit-when-idle 2>log-prn5
check_eq "prune: with a corrupt snapshot it restarts from a kept one past the cut (no archive needed)" \
	"$?,$(grep -c 'restarting from the kept snapshot' log-prn5),$(grep -c 'replaying the whole recording' log-prn5)" "0,1,0"
mv arch-away "$A2"
rm -rf st-prn/snapshots
# (another byte: the restart from the kept one may have left the corrupt snapshot in place)
python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 3] ^= 0x20; open(p, 'wb').write(b)" st-prn/snapshot
"$HETLAB" submit --config prn.json jobs-prn2.jsonl >/dev/null
timeout 60 "$HETLAB" live --config prn.json --exit-when-idle 2>log-prn3
check_eq "prune: with a corrupt snapshot and none kept it replays the archives and the state" \
	"$?,$(grep -c 'replaying the whole recording' log-prn3),$(q st-prn/state.db "SELECT count(*) FROM jobs WHERE state = 'done'")" \
	"0,1,$((303 - $(q "$A1/state.db" "SELECT count(*) FROM jobs") - $(q "$A2/state.db" "SELECT count(*) FROM jobs")))"
replay_same "prune: after the restarts" prn
rm -rf st-prn/snapshots
python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x20; open(p, 'wb').write(b)" st-prn/snapshot
mv "$A2" arch-away
timeout 60 "$HETLAB" live --config prn.json --exit-when-idle 2>log-prn4
check_eq "prune: with an archive missing too it stops, naming the rows and the archive" \
	"$?,$(grep -c "st-prn/archive: the recording's rows [0-9]* to [0-9]* were archived by a prune, but are in no archive" log-prn4)" "1,1"
mv arch-away "$A2"
if [ "$(id -u)" = 0 ]; then
	rm -rf st-prk
	cp -a st-prn-orig st-prk
	chown -R nobody st-prk
	"$HETLAB" state-prune st-prk --keep-days 0 >/dev/null 2>out-prk
	check_eq "prune: only the state's owner prunes it" "$?,$(grep -c 'only its owner prunes it' out-prk)" "1,1"
fi

# 25. The daemon prunes its own state (prune_keep_days): 0 days, every
#     0.2 s, a snapshot kept at each snapshot. It ends with archives and a
#     cut recorded; the replay of the whole state (archives first) still
#     proves every decision, and its results.db has every job, the same as
#     one rebuilt from the recording, its audit chain whole. Its log says
#     what each prune archived, /metrics counts the prunes. Bad values
#     are refused naming the key.
printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-apr", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "snapshot_every": 5, "snapshot_keep": 10, "snapshot_keep_every_s": 0, "prune_keep_days": 0, "prune_every_s": 0.2, "metrics": { "port": 0 } }\n' >apr.json
"$HETLAB" submit --config apr.json jobs-prn.jsonl >/dev/null
"$HETLAB" live --config apr.json --max-s 120 2>log-apr &
DAEMON=$!
port=
for i in $(seq 1 200); do port=$(port_of log-apr); [ -n "$port" ] && break; sleep 0.05; done
for i in $(seq 1 1200); do
	[ "$(grep -c 'end job [0-9]* done' log-apr)" -ge 300 ] && grep -q 'prune: .* archived to' log-apr && break
	sleep 0.05
done
sleep 0.5
mout=$(fetch /metrics)
kill -TERM "$DAEMON"
wait "$DAEMON"
check_eq "autoprune: the daemon runs 300 jobs and prunes its state as it goes" \
	"$?,$(grep -c 'prune: the recording.s rows [0-9]* to [0-9]* .* archived to .*st-apr/archive/0' log-apr | awk '{ print ($1 > 0) }'),$(ls -d st-apr/archive/0*-0* | wc -l | awk '{ print ($1 > 0) }'),$(q st-apr/state.db "SELECT value > 0 FROM meta WHERE key = 'pruned_seq'")" \
	"0,1,1,1"
DAEMON=
check_eq "autoprune: no prune failed" "$(grep -c 'warn.*prune' log-apr)" 0
check_eq "autoprune: /metrics counts the prunes" \
	"$(printf '%s\n' "$mout" | grep -c '^hetlab_state_prunes_total{result="ok"} [1-9]'),$(printf '%s\n' "$mout" | grep -c '^hetlab_state_prunes_total{result="failed"} 0$')" "1,1"
replay_same "autoprune: the pruned state (archives first)" apr
"$HETLAB" replay st-apr --results res-apr.db -q >/dev/null
check_eq "autoprune: the daemon's results.db has every job, as the replay's" \
	"$(q st-apr/results.db "SELECT count(*) FROM job"),$(jobsum st-apr/results.db)" "300,$(jobsum res-apr.db)"
check_eq "autoprune: its audit log verifies" "$("$HETLAB" audit verify st-apr/results.db >/dev/null 2>&1; echo $?)" 0
for v in '"prune_keep_days": -1' '"prune_keep_days": 3' '"prune_keep_days": 1, "snapshot_keep": 0' '"prune_keep_days": 1, "prune_every_s": 0'; do
	printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-apb", "probes": "none", %s }\n' "$v" >apb.json
	out=$("$HETLAB" live --config apb.json --max-s 1 2>&1)
	check_eq "autoprune: $v is refused, naming the key" \
		"$?,$(printf '%s\n' "$out" | grep -c 'apb.json: \$\.prune_\(keep_days\|every_s\): expected')" "1,1"
done

# 26. results.db is rewritten every results_every_s only when the daemon
#     changed the state since the last write: an idle daemon leaves it as
#     it is (the same file: no row changed), a job submitted meanwhile
#     makes the next write.
printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-apr", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "snapshot_every": 5, "results_every_s": 0.1 }\n' >ares.json
ino() { ls -i st-apr/results.db 2>/dev/null | cut -d' ' -f1; }
i0=$(ino)
"$HETLAB" live --config ares.json --max-s 20 -q 2>log-ares &
DAEMON=$!
for i in $(seq 1 200); do [ "$(ino)" != "$i0" ] && break; sleep 0.05; done
i1=$(ino)
sleep 1
i2=$(ino)
job batch 1 apr 0 | "$HETLAB" submit --config ares.json - >/dev/null
for i in $(seq 1 200); do [ "$(ino)" != "$i2" ] && break; sleep 0.05; done
i3=$(ino)
kill -TERM "$DAEMON"
wait "$DAEMON"
check_eq "results: written once after the start, then not while the daemon is idle, again once a job came" \
	"$?,$([ "$i1" != "$i0" ] && echo new),$([ "$i2" = "$i1" ] && echo same),$([ "$i3" != "$i2" ] && echo new),$(q st-apr/results.db "SELECT count(*) FROM job")" \
	"0,new,same,new,301"
DAEMON=

# 27. The periodic write of results.db is a child's (`hetlab replay
#     --results --no-compare`), not the loop's: with the daemon's metrics
#     on, /metrics counts the writes; a write that fails (results.db made
#     a directory) is said, counted, and the daemon runs its jobs on; the
#     file written beside the daemon is the replay's. --no-compare goes
#     with --results only.
printf '{ "scenario": "scn.json", "executor": "instant", "state_dir": "st-arc", "tick_s": 0.01, "probes": "none", "max_jobs": 50, "keep_ended": 20, "results_every_s": 0.1, "metrics": { "port": 0 } }\n' >arc.json
for i in $(seq 1 40); do job batch 1 arc 0; done | "$HETLAB" submit --config arc.json - >/dev/null
"$HETLAB" live --config arc.json --max-s 60 2>log-arc &
DAEMON=$!
port=
for i in $(seq 1 200); do port=$(port_of log-arc); [ -n "$port" ] && break; sleep 0.05; done
for i in $(seq 1 600); do
	[ "$(fetch /metrics | grep -c '^hetlab_results_writes_total{result="ok"} [1-9]')" = 1 ] && break
	sleep 0.05
done
mout=$(fetch /metrics)
sleep 0.3
cp st-arc/results.db res-arc-live.db
rm -f st-arc/results.db
mkdir st-arc/results.db
for i in $(seq 1 40); do job batch 1 arc 0; done | "$HETLAB" submit --config arc.json - >/dev/null
for i in $(seq 1 600); do
	[ "$(fetch /metrics | grep -c '^hetlab_results_writes_total{result="failed"} [1-9]')" = 1 ] && break
	sleep 0.05
done
fout=$(fetch /metrics)
for i in $(seq 1 600); do [ "$(grep -c 'end job [0-9]* done' log-arc)" -ge 80 ] && break; sleep 0.05; done
kill -TERM "$DAEMON"
wait "$DAEMON"
DAEMON=
check_eq "results child: /metrics counts a periodic write of results.db, and a failed one" \
	"$(printf '%s\n' "$mout" | grep -c '^hetlab_results_write_last_seconds [0-9.]*$'),$(printf '%s\n' "$fout" | grep -c '^hetlab_results_writes_total{result="failed"} [1-9]')" "1,1"
check_eq "results child: the failed write is said, and the daemon ran every job" \
	"$(grep -c 'warn.*results: .*st-arc/results.db' log-arc | awk '{ print ($1 > 0) }'),$(grep -c 'end job [0-9]* done' log-arc)" "1,80"
check_eq "results child: the file written beside the daemon verifies and has the jobs that had ended" \
	"$("$HETLAB" audit verify res-arc-live.db >/dev/null 2>&1; echo $?),$(q res-arc-live.db "SELECT count(*) > 0 FROM job")" "0,1"
out=$("$HETLAB" replay st-arc --no-compare 2>&1)
check_eq "replay --no-compare without --results is a usage error" \
	"$?,$(printf '%s\n' "$out" | grep -c 'no-compare goes with --results')" "2,1"
rmdir st-arc/results.db
"$HETLAB" replay st-arc --results res-arc.db --no-compare -q
check_eq "replay --results --no-compare writes the results only" \
	"$?,$(q res-arc.db "SELECT count(*) FROM job")" "0,80"

# 28. The same under the local executor, which reaps every child of the
#     daemon (the results write's included, its status then lost): the
#     writes are told from what the child said, none counted failed.
printf '{ "scenario": "scn.json", "executor": "local", "state_dir": "st-arl", "tick_s": 0.02, "probes": "none", "results_every_s": 0.1, "metrics": { "port": 0 } }\n' >arl.json
for i in $(seq 1 6); do job batch 1 arl 0.3; done | "$HETLAB" submit --config arl.json - >/dev/null
"$HETLAB" live --config arl.json --max-s 60 2>log-arl &
DAEMON=$!
port=
for i in $(seq 1 200); do port=$(port_of log-arl); [ -n "$port" ] && break; sleep 0.05; done
for i in $(seq 1 600); do
	[ "$(grep -c 'end job [0-9]* done' log-arl)" -ge 6 ] &&
		[ "$(fetch /metrics | grep -E -c '^hetlab_results_writes_total\{result="ok"\} ([3-9]|[1-9][0-9]+)$')" = 1 ] && break
	sleep 0.05
done
lout=$(fetch /metrics)
kill -TERM "$DAEMON"
wait "$DAEMON"
DAEMON=
check_eq "results child under the local executor: writes counted ok, none failed, nothing said" \
	"$(printf '%s\n' "$lout" | grep -E -c -e '^hetlab_results_writes_total\{result="ok"\} ([3-9]|[1-9][0-9]+)$' -e '^hetlab_results_writes_total\{result="failed"\} 0$'),$(grep -c 'results:' log-arl)" "2,0"
