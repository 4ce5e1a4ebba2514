# Sourced by tests/live/run.sh (its helpers, in $T): the socket shared
# fairly (issue 31 items 3 and 5).
#
# 18. A cancel queued behind submissions that wait for a full job table is
#     taken at once (it waited behind them for ever).
# 19. (root) One user holding every connection shuts nobody out: at most
#     LSOCK_USER_SLOTS (4) are theirs, root's queue, submit and cancel are
#     served meanwhile; a user's jobs not started are capped by
#     max_pending_per_user, refused at submit saying so; a socket in a
#     directory others may write is refused by the daemon, and a client
#     refuses a socket another user answers on.

# --- 18. cancels never wait behind submissions -------------------------------
cfg wait ', "probes": "none", "max_jobs": 2, "keep_ended": 0'
{ job batch 2 wait 30; job batch 2 wait 30; job batch 1 wait 0.1; } >jobs-wait.jsonl
"$HETLAB" submit --config wait.json jobs-wait.jsonl >/dev/null
timeout 60 "$HETLAB" live --config wait.json -q 2>log-wait &
DAEMON=$!
for i in $(seq 1 50); do [ "$(q st-wait/state.db "SELECT count(*) FROM jobs WHERE state = 'running'" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
"$HETLAB" cancel --config wait.json 0 1 >/dev/null
for i in $(seq 1 50); do [ "$(q st-wait/state.db "SELECT count(*) FROM jobs WHERE reason = 'cancelled'")" = 2 ] && break; sleep 0.1; done
check_eq "wait: cancels behind a submission waiting for a full table are taken" \
	"$(q st-wait/state.db "SELECT group_concat(state || ':' || reason) FROM jobs")" "killed:cancelled,killed:cancelled"
check_eq "wait: the submission still waits in the inbox" "$(q st-wait/state.db "SELECT group_concat(kind) FROM inbox")" "submit"
kill "$DAEMON" 2>/dev/null
wait "$DAEMON" 2>/dev/null
DAEMON=

# A python3 that nobody may run (not one under root's home).
PY=
for p in /usr/bin/python3 /usr/local/bin/python3; do [ -x "$p" ] && { PY=$p; break; }; done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 && [ -n "$PY" ]; then
	U=$(mktemp -d /tmp/hetlab-live-fair-XXXXXX)
	chmod 755 "$U"
	mkdir "$U/pub" "$U/work" "$U/open"
	chmod 1777 "$U/open"
	chown nobody "$U/work"
	cp "$HETLAB" "$U/hetlab"
	chmod 755 "$U/hetlab"
	as_nobody() { (cd "$U/work" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"); }
	sock=$U/pub/hetlab.sock
	# --- 19. one user holds every connection it can, floods the table --------
	cfg fair ", \"probes\": \"none\", \"socket\": \"$sock\", \"max_jobs\": 40, \"max_pending_per_user\": 12"
	timeout 60 "$HETLAB" live --config fair.json 2>log-fair &
	DAEMON=$!
	for i in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
	# nobody opens 20 connections that send nothing and keeps them 4 s.
	cat >"$U/hold.py" <<'EOF'
import socket, sys, time
held, told = [], 0
for i in range(20):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
time.sleep(0.5)
for s in held:
    s.setblocking(False)
    try:
        if b"the most one user may" in s.recv(4096):
            told += 1
    except BlockingIOError:
        pass
open(sys.argv[2], "w").write("%d\n" % told)
time.sleep(3.5)
EOF
	as_nobody "$PY" "$U/hold.py" "$sock" "$U/work/told" &
	HOLD=$!
	for i in $(seq 1 50); do [ -s "$U/work/told" ] && break; sleep 0.1; done
	check_eq "fair: one user gets 4 connections, the other 16 are refused saying why" "$(cat "$U/work/told" 2>/dev/null)" 16
	out=$("$HETLAB" queue --socket "$sock" 2>&1)
	check_eq "fair: root's queue is served while they are held" "$?,$(printf '%s' "$out" | grep -c busy)" "0,0"
	out=$(job batch 1 fair 0.1 | "$HETLAB" submit --socket "$sock" - 2>&1)
	check_eq "fair: root's submit is served" "$?,$(printf '%s' "$out" | grep -c '1 job queued')" "0,1"
	out=$("$HETLAB" cancel --socket "$sock" 0 2>&1)
	check_eq "fair: root's cancel is served" "$?,$(printf '%s' "$out" | grep -c '1 cancellation queued')" "0,1"
	wait "$HOLD"
	# nobody floods: 12 jobs are taken (4 cores: most wait), 13 more refused.
	nj='{"class": "batch", "req": {"nodes": 1, "cores": 1}, "argv": ["sleep", "5"]}'
	for i in $(seq 1 12); do echo "$nj"; done >"$U/work/flood12.jsonl"
	for i in $(seq 1 13); do echo "$nj"; done >"$U/work/flood13.jsonl"
	out=$(as_nobody "$U/hetlab" submit --socket "$sock" flood12.jsonl 2>&1)
	check_eq "fair: nobody submits 12 jobs" "$?,$(printf '%s' "$out" | grep -c '12 jobs queued')" "0,1"
	out=$(as_nobody "$U/hetlab" submit --socket "$sock" flood13.jsonl 2>&1)
	check_eq "fair: 13 more are refused, naming the limit and what is pending" \
		"$?,$(printf '%s' "$out" | grep -c 'nobody (uid [0-9]*) has [0-9]* jobs\{0,1\} pending (submitted, not started) and this submission adds 13: at most 12 pending jobs per user (max_pending_per_user')" "1,1"
	check_eq "fair: nothing of the refused submission is queued" \
		"$(q st-fair/state.db "SELECT (SELECT count(*) FROM inbox WHERE kind = 'submit') + (SELECT count(*) FROM job_owner WHERE uid = $(id -u nobody))")" 12
	# root (an operator: no limit) fills the table; its cancels are taken.
	for i in $(seq 1 40); do echo "$nj"; done | "$HETLAB" submit --socket "$sock" - >/dev/null
	for i in $(seq 1 50); do [ "$(q st-fair/state.db "SELECT count(*) FROM jobs")" = 40 ] && break; sleep 0.1; done
	last=$(q st-fair/state.db "SELECT max(o.id) FROM job_owner o WHERE o.uid = $(id -u nobody)")
	"$HETLAB" cancel --socket "$sock" "$last" >/dev/null
	for i in $(seq 1 50); do [ "$(q st-fair/state.db "SELECT reason FROM jobs WHERE id = $last")" = cancelled ] && break; sleep 0.1; done
	check_eq "fair: the table full, root's cancel of nobody's job is taken" \
		"$(q st-fair/state.db "SELECT reason FROM jobs WHERE id = $last"),$(q st-fair/state.db "SELECT count(*) > 0 FROM inbox WHERE kind = 'submit'")" "cancelled,1"
	kill "$DAEMON" 2>/dev/null
	wait "$DAEMON" 2>/dev/null
	DAEMON=
	# --- 20. the socket's path: nobody can take it -------------------------
	cfg squat ", \"probes\": \"none\", \"socket\": \"$U/open/hetlab.sock\""
	out=$(timeout 20 "$HETLAB" live --config squat.json --max-s 1 2>&1)
	check_eq "squat: the daemon refuses a socket in a directory everyone writes (sticky or not)" \
		"$?,$(printf '%s' "$out" | grep -c "$U/open: the socket's directory is writable by everyone (mode 1777), sticky or not: refused")" "1,1"
	cat >"$U/squat.py" <<'EOF'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(4)
open(sys.argv[2], "w").write("up\n")
s.settimeout(10)
c, _ = s.accept()
c.recv(65536)
c.sendall(b'{"ok": true, "queued": 1, "first_inbox": 1, "last_inbox": 1}\n')
time.sleep(0.5)
EOF
	as_nobody "$PY" "$U/squat.py" "$U/open/x.sock" "$U/work/up" 2>/dev/null &
	HOLD=$!
	for i in $(seq 1 50); do [ -s "$U/work/up" ] && break; sleep 0.1; done
	out=$(job batch 1 fair 0.1 | "$HETLAB" submit --socket "$U/open/x.sock" - 2>&1)
	check_eq "squat: a client refuses a socket another user answers on, saying who" \
		"$?,$(printf '%s' "$out" | grep -c "answered by uid $(id -u nobody) (pid [0-9]*), who is neither root, nor you, nor the owner of $U/open: refused")" "1,1"
	kill "$HOLD" 2>/dev/null
	wait "$HOLD" 2>/dev/null
	rm -rf "$U"
	U=
else
	echo "skip live: fair (needs root, setpriv, python3 and the user nobody)"
fi
