#!/bin/sh
# Command-line tests: every command's --help is `hetlab help CMD` and exits
# 0, usage errors exit 2 with one line and a hint, --opt=value works, the
# man pages and completions generated from the same table are well formed,
# `hetlab jobs` and `hetlab export openmetrics` read a run, `make install`
# and `make uninstall` with DESTDIR.
#
# usage: tests/cli/run.sh HETLAB BUILD_DIR
set -u
HETLAB=$1
BUILD=${2:-build}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
# rc CMD...: the exit status, output to $TMP/out and $TMP/err
rc() { "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }

# ---- help and usage errors, for every command and sub-command ------------
"$HETLAB" help --list > "$TMP/list" || bad "help --list"
n=0
while read -r cmd sub; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$HETLAB" help $cmd $sub > "$TMP/help" 2>&1 || bad "help $cmd $sub exits 0"
	for h in --help -h; do
		# shellcheck disable=SC2086
		got=$(rc "$HETLAB" $cmd $sub $h)
		if [ "$got" != 0 ]; then
			bad "$cmd $sub $h exits 0" "exit $got: $(head -2 "$TMP/err")"
		elif ! cmp -s "$TMP/out" "$TMP/help"; then
			bad "$cmd $sub $h prints 'hetlab help $cmd $sub'" "$(diff "$TMP/help" "$TMP/out" | head -5)"
		fi
	done
	wide=$(awk 'length > 79' "$TMP/help" | head -1)
	[ -z "$wide" ] || bad "help $cmd $sub fits in 79 columns" "$wide"
	# shellcheck disable=SC2086
	got=$(rc "$HETLAB" $cmd $sub --no-such-option)
	lines=$(wc -l < "$TMP/err")
	if [ "$got" != 2 ] || ! grep -q "unknown option --no-such-option" "$TMP/err" || [ "$lines" -gt 2 ] ||
	   ! grep -q -- "--help" "$TMP/err"; then
		bad "$cmd $sub --no-such-option: exit 2, one line and a hint" "exit $got: $(cat "$TMP/err")"
	fi
done < "$TMP/list"
[ "$n" -gt 20 ] && ok "every command and sub-command ($n): --help and -h = help CMD, exit 0; unknown options exit 2" ||
	bad "help --list lists the commands" "$n"
grep -q -- '-q, --quiet' "$TMP/list" 2>/dev/null
"$HETLAB" help run | grep -q -- '-q, --quiet' && "$HETLAB" help sweep | grep -q -- '--slurm' &&
	"$HETLAB" help sweep | grep -q -- '--merge' && "$HETLAB" help sweep | grep -q -- '--point' &&
	ok "help run lists -q, help sweep lists --slurm, --point and --merge" || bad "help run / sweep options"

check_eq "hetlab -V" "$("$HETLAB" -V)" "$("$HETLAB" version)"
got=$(rc "$HETLAB" policies nope)
[ "$got" = 2 ] && grep -q "unknown policy 'nope' (known: .*slurm" "$TMP/err" &&
	ok "policies nope: exit 2, naming the known policies" || bad "policies nope" "exit $got: $(cat "$TMP/err")"
"$HETLAB" policies | grep -q "parameters: hetlab policies slurm" && "$HETLAB" policies slurm | grep -q "^    bf_window_min " &&
	ok "policies: the slurm policy's parameters by name only" || bad "policies slurm"
check_eq "hetlab --version" "$("$HETLAB" --version)" "$("$HETLAB" version)"
check_eq "version --bogus exits 2" "$(rc "$HETLAB" version --bogus)" 2
check_eq "version extra exits 2" "$(rc "$HETLAB" version extra)" 2
got=$(rc "$HETLAB" rnu)
if [ "$got" = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "did you mean 'run'" "$TMP/err" &&
   [ ! -s "$TMP/out" ]; then
	ok "an unknown command: one line with a hint, exit 2"
else
	bad "unknown command" "exit $got: $(cat "$TMP/err")"
fi
got=$(rc "$HETLAB")
[ "$got" = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && ok "no command: one line, exit 2" || bad "no command" "$got"
got=$(rc "$HETLAB" trace frobnicate x)
[ "$got" = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && ok "an unknown sub-command: one line, exit 2" ||
	bad "unknown sub-command" "$got: $(cat "$TMP/err")"
"$HETLAB" help | tail -1 | grep -q "^Docs: .*docs" && ok "help ends with where the docs are" || bad "help docs line"

# ---- option syntax and exit statuses -------------------------------------
"$HETLAB" run -q --seed=3 --out="$TMP/a.db" >/dev/null 2>&1 &&
	"$HETLAB" run -q --seed 3 -o "$TMP/b.db" >/dev/null 2>&1 &&
	[ "$("$HETLAB" jobs -P -n "$TMP/a.db" | md5sum)" = "$("$HETLAB" jobs -P -n "$TMP/b.db" | md5sum)" ] &&
	ok "run: --opt=value and --opt value, -o and --out mean the same" || bad "run --opt=value"
check_eq "run --seed bad exits 2" "$(rc "$HETLAB" run --seed=x)" 2
check_eq "run --policy bad exits 2" "$(rc "$HETLAB" run --policy=nope --out "$TMP/c.db")" 2
check_eq "run --seed without a value exits 2" "$(rc "$HETLAB" run --seed)" 2
check_eq "live --policy bad exits 2" "$(rc "$HETLAB" live --policy=nope --config "$TMP/none.json")" 2
check_eq "live --metrics-port bad exits 2" "$(rc "$HETLAB" live --metrics-port 70000 --config "$TMP/none.json")" 2
# (--executor was checked once the daemon started: exit 1)
check_eq "live --executor bad exits 2, before the config is read" \
	"$(rc "$HETLAB" live --executor nope --config "$TMP/none.json")" 2
grep -q "^hetlab live: --executor: expected local, slurm or instant, got 'nope'" "$TMP/err" &&
	ok "live --executor bad names the executors" || bad "live --executor message" "$(cat "$TMP/err")"
check_eq "sweep -j0 exits 2" "$(rc "$HETLAB" sweep -j0 x.json)" 2
check_eq "compare --level=2 exits 2" "$(rc "$HETLAB" compare a b --level=2)" 2
check_eq "run: a missing scenario file exits 1" "$(rc "$HETLAB" run "$TMP/none.json" --out "$TMP/c.db")" 1
check_eq "report: a missing database exits 1" "$(rc "$HETLAB" report "$TMP/none.db")" 1
check_eq "plot --out=DIR" "$(rc "$HETLAB" plot "$TMP/a.db" --out="$TMP/figs")" \
	"$(command -v gnuplot >/dev/null && echo 0 || echo 1)"
check_eq "flags take no value (--lenient=1 exits 2)" "$(rc "$HETLAB" run --lenient=1)" 2
check_eq "-- ends the options" "$(rc "$HETLAB" report -- --format)" 1

# ---- catalog -------------------------------------------------------------
"$HETLAB" catalog > "$TMP/cat"
awk '$1 == "A100-SXM-80GB" { print $6 }' "$TMP/cat" | grep -qx -- '-' &&
	awk '$1 == "H100-SXM-80GB" { print $6 }' "$TMP/cat" | grep -qx '1978.9' &&
	ok "catalog: FP8 of a card without FP8 is '-'" || bad "catalog FP8" "$(grep A100-SXM "$TMP/cat")"
grep -q 'B200-SXM-180GB' "$TMP/cat" && grep -q 'GB200-186GB' "$TMP/cat" && grep -q 'MI300X-192GB' "$TMP/cat" &&
	grep -q '^  train:' "$TMP/cat" && grep -q '^  peak:' "$TMP/cat" &&
	ok "catalog: B200, GB200, MI300X; the two speed figures labelled" || bad "catalog new cards"

# ---- jobs (sacct) --------------------------------------------------------
DB=$TMP/a.db
"$HETLAB" jobs "$DB" > "$TMP/jobs"
check_eq "jobs: sacct's default header" "$(head -1 "$TMP/jobs" | tr -s ' ' | sed 's/^ //')" \
	"JobID JobName Partition Account AllocCPUS State ExitCode"
njobs=$(sqlite3 -batch -noheader "$DB" 'SELECT count(*) FROM job')
check_eq "jobs: one line per job" "$(($(wc -l < "$TMP/jobs") - 2))" "$njobs"
nf=$(sqlite3 -batch -noheader "$DB" "SELECT count(*) FROM job WHERE state = 'failed' AND reason = 'trace'")
check_eq "jobs -s FAILED -n" "$("$HETLAB" jobs "$DB" -s FAILED -n | wc -l)" "$nf"
check_eq "jobs -s F,CD -P: states" "$("$HETLAB" jobs "$DB" --state=F,CD -P -n -o State | sort -u | tr '\n' ' ')" \
	"COMPLETED FAILED "
line=$("$HETLAB" jobs "$DB" -P -o JobID,Submit,Start,Elapsed,ElapsedRaw,AllocTRES --origin 2026-01-05 -n | head -1)
want=$(sqlite3 -batch -noheader "$DB" "SELECT id || '|' || strftime('%Y-%m-%dT%H:%M:%S', 1767571200 + submit_us / 1000000, 'unixepoch')
	|| '|' || strftime('%Y-%m-%dT%H:%M:%S', 1767571200 + start_us / 1000000, 'unixepoch') FROM job ORDER BY id LIMIT 1")
case "$line" in "$want|"*) ok "jobs -P: times on --origin" ;; *) bad "jobs times" "$line vs $want" ;; esac
p1=$("$HETLAB" jobs "$DB" -p -n -o JobID,State | head -1)
case "$p1" in *"|"*"|") ok "jobs -p ends lines with '|', -P does not" ;; *) bad "jobs -p" "$p1" ;; esac
# a window: jobs that were eligible or running in the first hour
w=$("$HETLAB" jobs "$DB" -n -P -o JobID --origin 2026-01-05 -S 2026-01-05T00:00 -E 2026-01-05T01:00:00 | wc -l)
wq=$(sqlite3 -batch -noheader "$DB" "SELECT count(*) FROM job WHERE submit_us <= 3600000000 AND (end_us IS NULL OR end_us >= 0)")
check_eq "jobs -S/-E: the window" "$w" "$wq"
check_eq "jobs -E +3600 (seconds from the start)" "$("$HETLAB" jobs "$DB" -n -P -o JobID --origin 2026-01-05 -E +3600 | wc -l)" "$wq"
check_eq "jobs: an unknown field exits 2" "$(rc "$HETLAB" jobs "$DB" -o JobID,Nope)" 2
check_eq "jobs: a bad state exits 2" "$(rc "$HETLAB" jobs "$DB" -s DONE)" 2
check_eq "jobs: a bad time exits 2" "$(rc "$HETLAB" jobs "$DB" -S yesterday)" 2
check_eq "jobs: not a database exits 1" "$(rc "$HETLAB" jobs "$TMP/list")" 1
"$HETLAB" jobs -o JobID%-4,State%3 -n "$DB" | head -1 | grep -qx '0    CO+' &&
	ok "jobs: FIELD%-W left-justifies, a wider value ends in '+'" || bad "jobs widths" "$("$HETLAB" jobs -o JobID%-4,State%3 -n "$DB" | head -1)"
"$HETLAB" jobs --helpformat | grep -q AllocTRES && ok "jobs --helpformat" || bad "jobs --helpformat"

# ---- Kubernetes history (tests/data/k8s: kubectl get pods -A / get nodes -o json) ----
K8S=tests/data/k8s
if "$HETLAB" run "$K8S/scenario.json" --out "$TMP/k8s.db" -q 2>"$TMP/err"; then
	check_eq "k8s: the pods that ran are jobs, the PodGroup one gang" \
		"$(sqlite3 -batch -noheader "$TMP/k8s.db" 'SELECT count(*) FROM job')" 7
	"$HETLAB" jobs "$TMP/k8s.db" -P -n -o JobName,Account,State,AllocTRES > "$TMP/k8sjobs"
	grep -qx 'ml-team/pytorch-ddp-1b0c6f5e|ml-team|COMPLETED|cpu=64,mem=524288M,node=2,gres/gpu=16' "$TMP/k8sjobs" &&
		grep -qx 'ml-team/finetune-llama-x7k2p|ml-team|FAILED|cpu=8,mem=32768M,node=1,gres/gpu=1' "$TMP/k8sjobs" &&
		grep -q '^inference/llm-server-7f9c8d6b5-abcde|inference|' "$TMP/k8sjobs" &&
		ok "k8s: hetlab jobs shows namespace/name, the namespace as account" || bad "k8s jobs" "$(cat "$TMP/k8sjobs")"
	# the H100 pods on the H100 node (r01-n4), the MIG pod on the MIG node (r01-n3), the CPU
	# job, which does not tolerate the GPU nodes' taint, on the CPU node (r01-n5)
	"$HETLAB" jobs "$TMP/k8s.db" -P -n -o JobName,NodeList > "$TMP/k8snodes"
	grep -qx 'ml-team/eval-h100|r01-n4' "$TMP/k8snodes" && grep -qx 'ml-team/finetune-llama-x7k2p|r01-n4' "$TMP/k8snodes" &&
		grep -qx 'inference/llm-server-7f9c8d6b5-abcde|r01-n3' "$TMP/k8snodes" &&
		grep -qx 'data/etl-nightly-28571234-q8xz2|r01-n5' "$TMP/k8snodes" &&
		ok "k8s: GPU products, MIG requests and taints place pods on their nodes" || bad "k8s placement" "$(cat "$TMP/k8snodes")"
	"$HETLAB" run "$K8S/scenario.json" --out "$TMP/k8s2.db" -q --trace "$K8S/pods.json" 2>/dev/null &&
		[ "$("$HETLAB" jobs -P -n "$TMP/k8s.db" | md5sum)" = "$("$HETLAB" jobs -P -n "$TMP/k8s2.db" | md5sum)" ] &&
		ok "k8s: --trace pods.json replays the same" || bad "k8s --trace"
	"$HETLAB" run --trace "$K8S/pods.json" --nodes "$K8S/nodes.json" --out "$TMP/k8s3.db" -q 2>/dev/null &&
		[ "$("$HETLAB" jobs -P -n "$TMP/k8s.db" | md5sum)" = "$("$HETLAB" jobs -P -n "$TMP/k8s3.db" | md5sum)" ] &&
		ok "k8s: --trace pods.json --nodes nodes.json, without a scenario, replays the same" || bad "k8s --nodes"
else
	bad "k8s: hetlab run $K8S/scenario.json" "$(cat "$TMP/err")"
fi
"$HETLAB" trace inspect "$K8S/pods.json" | grep -q '^file .*(Kubernetes pods)' &&
	ok "k8s: trace inspect names the format" || bad "k8s trace inspect"

# ---- twin check (hand-made dumps: tests/data/twincheck/SOURCE.md) -------
TC=$(dirname "$0")/../data/twincheck
"$HETLAB" twin check "$TC/real.sacct" "$TC/other.sacct" --by name --bf-interval 5 >"$TMP/tc" 2>&1
grep -q '4 matched; unmatched 1 real, 2 other' "$TMP/tc" && grep -q 'real 17.5 s, other 11.8 s, error -32.9 %' "$TMP/tc" &&
	grep -q 'median 6.0 s (1.20 bf_interval), p90 13.5 s (2.70 bf_interval), mean 6.8 s' "$TMP/tc" &&
	grep -q '50.0 % of the jobs (bf_interval 5 s' "$TMP/tc" && grep -q "tau-b 1.000" "$TMP/tc" &&
	grep -q 'preemptions   real 2, other 0' "$TMP/tc" && grep -q '1 real and 0 other that never ran' "$TMP/tc" &&
	ok "twin check: two dumps by name, the figures worked out by hand" || bad "twin check by name" "$(cat "$TMP/tc")"
"$HETLAB" twin check "$TC/real.sacct" "$TC/other.sacct" --by name --json >"$TMP/tc.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["matched"] == 4 and len(d["pairs"]) == 4 and d["bf_interval_s"] == 30 and abs(d["dstart_p90_s"] - 13.5) < 1e-9' "$TMP/tc.json" 2>/dev/null &&
	ok "twin check --json: the figures and each matched job" || bad "twin check --json" "$(head -c 300 "$TMP/tc.json")"
check_eq "twin check by jobid: nothing matches, exit 1" "$(rc "$HETLAB" twin check "$TC/real.sacct" "$TC/other.sacct")" 1
"$HETLAB" run --trace "$TC/real.sacct" --out "$TMP/tc.db" -q >/dev/null 2>&1
"$HETLAB" twin check "$TC/real.sacct" "$TMP/tc.db" --by name >"$TMP/tc" 2>&1 && grep -q '5 matched; unmatched 0 real, 0 twin' "$TMP/tc" &&
	"$HETLAB" twin check "$TC/real.sacct" "$TMP/tc.db" | grep -q '5 matched' &&
	ok "twin check: a dump against its own replay, by name and by jobid" || bad "twin check RUN.DB" "$(cat "$TMP/tc")"
check_eq "twin check: a malformed dump exits 1" "$(rc "$HETLAB" twin check "$TC/bad-start.sacct" "$TC/other.sacct")" 1
grep -q "bad-start.sacct:4: Start: expected a time" "$TMP/err" && ok "twin check: the message names file and line" ||
	bad "twin check malformed" "$(cat "$TMP/err")"
check_eq "twin check: not a results file exits 1" "$(rc "$HETLAB" twin check "$TC/real.sacct" "$TC/SOURCE.md")" 1
grep -q "SOURCE.md: not a hetlab results file" "$TMP/err" && ok "twin check: a file that is neither is named" ||
	bad "twin check other file" "$(cat "$TMP/err")"
cut -d'|' -f1,2,4- "$TC/real.sacct" >"$TMP/noname.sacct"
check_eq "twin check --by name: a dump without JobName exits 1" "$(rc "$HETLAB" twin check "$TMP/noname.sacct" "$TC/other.sacct" --by name)" 1
grep -q "noname.sacct: no job has a JobName" "$TMP/err" && ok "twin check: says the dump has no JobName" ||
	bad "twin check without JobName" "$(cat "$TMP/err")"
check_eq "twin check: a run first exits 1" "$(rc "$HETLAB" twin check "$TMP/tc.db" "$TC/real.sacct")" 1
check_eq "twin check: one file exits 2" "$(rc "$HETLAB" twin check "$TC/real.sacct")" 2

# ---- a run as a trace, and demand scaling of a replay --------------------
"$HETLAB" trace convert "$DB" "$TMP/run.swf" >/dev/null && "$HETLAB" trace convert "$DB" "$TMP/run.jsonl" >/dev/null ||
	bad "trace convert run.db"
check_eq "trace convert run.db out.swf: one line per job" "$(grep -vc '^;' "$TMP/run.swf")" "$njobs"
grep -q '^; UnixStartTime: ' "$TMP/run.swf" && grep -q '^; MaxProcs: ' "$TMP/run.swf" &&
	ok "run.swf has the SWF header" || bad "run.swf header"
check_eq "SWF fields per line" "$(grep -v '^;' "$TMP/run.swf" | awk '{print NF}' | sort -u)" 18
"$HETLAB" trace inspect "$TMP/run.swf" | grep -q "^jobs  *$njobs " && ok "hetlab reads its SWF export back" ||
	bad "trace inspect run.swf"
done_swf=$(grep -v '^;' "$TMP/run.swf" | awk '$11 == 1' | wc -l)
check_eq "SWF status 1 = the run's done jobs" "$done_swf" "$(sqlite3 -batch -noheader "$DB" "SELECT count(*) FROM job WHERE state = 'done'")"
check_eq "trace convert run.db out.txt exits 2" "$(rc "$HETLAB" trace convert "$DB" "$TMP/run.txt")" 2
"$HETLAB" run -q --trace "$TMP/run.jsonl" --out "$TMP/r1.db" >/dev/null 2>&1 &&
	"$HETLAB" run -q --trace "$TMP/run.jsonl" --scale-rate 2 --out "$TMP/r2.db" >/dev/null 2>&1 &&
	"$HETLAB" run -q --trace "$TMP/run.jsonl" --scale-rate 0.5 --out "$TMP/r05.db" >/dev/null 2>&1 ||
	bad "replays of the JSON Lines export with --scale-rate"
check_eq "a replay of the JSON Lines export has every job" "$(sqlite3 -batch -noheader "$TMP/r1.db" 'SELECT count(*) FROM job')" "$njobs"
check_eq "--scale-rate 2 on a replay doubles the jobs" "$(sqlite3 -batch -noheader "$TMP/r2.db" 'SELECT count(*) FROM job')" "$((2 * njobs))"
h=$(sqlite3 -batch -noheader "$TMP/r05.db" 'SELECT count(*) FROM job')
[ "$h" -gt $((njobs * 4 / 10)) ] && [ "$h" -lt $((njobs * 6 / 10)) ] && ok "--scale-rate 0.5 on a replay thins to about half ($h)" ||
	bad "--scale-rate 0.5 on a replay" "$h of $njobs"
check_eq "--scale-size on a replay exits 1" "$(rc "$HETLAB" run --trace "$TMP/run.jsonl" --scale-size 2 --out "$TMP/x.db")" 1

# ---- a trace through a pipe or a FIFO is read once --------------------------
# (Its format was told from its first lines and then it was read again: a
# pipe gave a run of the rest, a FIFO hung.)
q1="SELECT id, start_us, end_us, node_list FROM job ORDER BY id"
"$HETLAB" run -q --trace "$TMP/run.swf" --out "$TMP/f1.db" >/dev/null 2>&1
cat "$TMP/run.swf" | "$HETLAB" run -q --trace /dev/stdin --out "$TMP/p1.db" >/dev/null 2>&1
check_eq "a SWF trace through a pipe runs as the file does" \
	"$(sqlite3 -batch "$TMP/p1.db" "$q1" 2>&1 | md5sum)" "$(sqlite3 -batch "$TMP/f1.db" "$q1" | md5sum)"
mkfifo "$TMP/fifo.swf" "$TMP/fifo.jsonl"
cat "$TMP/run.swf" > "$TMP/fifo.swf" &
w1=$!
timeout 30 "$HETLAB" run -q --trace "$TMP/fifo.swf" --out "$TMP/p2.db" >/dev/null 2>&1
check_eq "a SWF trace through a named FIFO is read as the file is" \
	"$?,$(sqlite3 -batch "$TMP/p2.db" "$q1" 2>&1 | md5sum)" "0,$(sqlite3 -batch "$TMP/f1.db" "$q1" | md5sum)"
cat "$TMP/run.jsonl" > "$TMP/fifo.jsonl" &
w2=$!
timeout 30 "$HETLAB" run -q --trace "$TMP/fifo.jsonl" --out "$TMP/p4.db" >/dev/null 2>&1
check_eq "a JSON Lines trace through a named FIFO is read (by its suffix) as the file is" \
	"$?,$(sqlite3 -batch "$TMP/p4.db" "$q1" 2>&1 | md5sum)" "0,$(sqlite3 -batch "$TMP/r1.db" "$q1" | md5sum)"
kill "$w1" "$w2" 2>/dev/null   # writers left blocked when a read failed
wait "$w1" "$w2" 2>/dev/null
printf 'not a trace\n' | "$HETLAB" run -q --trace /dev/stdin --out "$TMP/p3.db" >/dev/null 2>"$TMP/err"
check_eq "a bad trace through a pipe is refused, naming the path as given" \
	"$?,$(grep -c '^hetlab run: /dev/stdin:1: ' "$TMP/err")" "1,1"
check_eq "trace inspect reads a pipe" \
	"$(cat "$TMP/run.swf" | "$HETLAB" trace inspect /dev/stdin | grep -c "^jobs  *$njobs ")" 1

# ---- export openmetrics --------------------------------------------------
"$HETLAB" export openmetrics "$DB" --origin 2026-01-05 -o "$TMP/run.om" || bad "export openmetrics"
tail -1 "$TMP/run.om" | grep -qx '# EOF' && ok "openmetrics: ends with # EOF" || bad "openmetrics EOF"
dup=$(grep '^# TYPE' "$TMP/run.om" | awk '{print $3}' | sort | uniq -d | head -1)
check_eq "openmetrics: each family once" "$dup" ""
# every family's samples are together: a family name never comes back
back=$(grep -v '^#' "$TMP/run.om" | sed 's/[{ ].*//; s/_\(bucket\|count\|sum\|total\)$//' | uniq | sort | uniq -d | head -1)
check_eq "openmetrics: a family's samples are contiguous" "$back" ""
ns=$(sqlite3 -batch -noheader "$DB" 'SELECT count(*) FROM sample')
check_eq "openmetrics: one hetlab_up point per sample" "$(grep -c '^hetlab_up ' "$TMP/run.om")" "$ns"
t1=$(sqlite3 -batch -noheader "$DB" 'SELECT 1767571200 + t_us / 1000000 FROM sample ORDER BY t_us LIMIT 1 OFFSET 100')
ca=$(sqlite3 -batch -noheader "$DB" 'SELECT cores_alloc FROM sample ORDER BY t_us LIMIT 1 OFFSET 100')
check_eq "openmetrics: hetlab_cores_allocated at a sample" \
	"$(grep "^hetlab_cores_allocated $ca $t1.000\$" "$TMP/run.om" | wc -l)" 1
check_eq "export: no database exits 2" "$(rc "$HETLAB" export openmetrics)" 2
check_eq "export: a missing database exits 1" "$(rc "$HETLAB" export openmetrics "$TMP/none.db" -o "$TMP/x.om")" 1
[ ! -e "$TMP/x.om" ] && ok "export: no half-written file on failure" || bad "export left a file"

# ---- Kubernetes-shaped placement: taints, tolerations, ORed terms, priority classes
cat > "$TMP/k8s.json" <<'EOS'
{ "name": "k8s", "seed": 1, "policy": "fcfs",
  "node_types": [
    { "name": "h100", "gpu": "H100-SXM-80GB", "gpus": 8, "cpu": "Xeon-8480+", "sockets": 2, "mem_gib": 1024,
      "labels": { "node.taints": "dedicated=ml:NoSchedule" } },
    { "name": "a100", "gpu": "A100-SXM-80GB", "gpus": 8, "cpu": "Xeon-8480+", "sockets": 2, "mem_gib": 1024,
      "labels": { "node.taints": "spot=true:PreferNoSchedule" } },
    { "name": "l40s", "gpu": "L40S-48GB", "gpus": 4, "cpu": "Xeon-8480+", "sockets": 2, "mem_gib": 512 } ],
  "racks": [ { "name": "r1", "power_kw": 40,
    "nodes": [ { "type": "h100", "count": 2 }, { "type": "a100", "count": 2 }, { "type": "l40s", "count": 2 } ] } ] }
EOS
awk 'BEGIN { for (i = 0; i < 60; i++) {
	k = i % 4; req = "\"nodes\": 1, \"gpus\": 2, \"cores\": 8, \"mem_mib\": 65536"; cls = "\"class\": \"training\""
	if (k == 1) req = req ", \"tolerations\": \"dedicated=ml:NoSchedule\""
	if (k == 2) req = req ", \"require\": \"nvidia.com/gpu.product = NVIDIA-H100-80GB-HBM3 | nvidia.com/gpu.product = NVIDIA-L40S\", \"tolerations\": \"dedicated:NoSchedule\""
	if (k == 3) cls = "\"priority_class\": \"inference\""
	printf "{\"submit_us\": %d, \"run_us\": 3600000000, %s, \"req\": {%s}}\n", i * 60000000, cls, req } }' > "$TMP/k8s.jsonl"
if "$HETLAB" run -q "$TMP/k8s.json" --trace "$TMP/k8s.jsonl" --out "$TMP/k8s.db" >/dev/null 2>&1; then
	kq() { sqlite3 -batch -noheader "$TMP/k8s.db" "$1"; }
	# nodes r1-n1, r1-n2: h100 (NoSchedule); r1-n3, r1-n4: a100 (PreferNoSchedule); r1-n5, r1-n6: l40s
	check_eq "taints: a job without a toleration never runs on a NoSchedule node" \
		"$(kq "SELECT count(*) FROM job WHERE id % 4 IN (0, 3) AND node_list IN ('r1-n1', 'r1-n2')")" 0
	[ "$(kq "SELECT count(*) FROM job WHERE id % 4 = 1 AND node_list IN ('r1-n1', 'r1-n2')")" -gt 0 ] &&
		ok "tolerations: a tolerating job runs on the tainted nodes" || bad "tolerating jobs on tainted nodes"
	check_eq "PreferNoSchedule: the first untolerating job goes to an untainted node" "$(kq 'SELECT node_list FROM job WHERE id = 0')" r1-n5
	check_eq "ORed terms: H100 | L40S jobs run on neither A100" \
		"$(kq "SELECT count(*) FROM job WHERE id % 4 = 2 AND node_list IN ('r1-n3', 'r1-n4')")" 0
	[ "$(kq "SELECT count(DISTINCT node_list IN ('r1-n5', 'r1-n6')) FROM job WHERE id % 4 = 2")" = 2 ] &&
		ok "ORed terms: both alternatives are used" || bad "ORed terms alternatives"
	check_eq "priority_class inference maps to the inference class" "$(kq "SELECT DISTINCT class FROM job WHERE id % 4 = 3")" inference
	check_eq "every job ran" "$(kq "SELECT count(*) FROM job WHERE state = 'done'")" 60
	"$HETLAB" trace convert "$TMP/k8s.jsonl" "$TMP/k8s2.jsonl" >/dev/null &&
		check_eq "tolerations survive a JSON Lines round trip" "$(grep -c '"tolerations":' "$TMP/k8s2.jsonl")" 30
else
	bad "the Kubernetes-shaped scenario runs" "$("$HETLAB" run -q "$TMP/k8s.json" --trace "$TMP/k8s.jsonl" --out "$TMP/k8s.db" 2>&1 | tail -2)"
fi
printf '{"submit_us": 0, "run_us": 1, "req": {"cores": 1, "tolerations": "a:Never"}}\n' > "$TMP/badtol.jsonl"
"$HETLAB" run -q "$TMP/k8s.json" --trace "$TMP/badtol.jsonl" --out "$TMP/x.db" 2>"$TMP/err"
grep -q 'badtol.jsonl:1: $.req.tolerations: toleration "a:Never": unknown effect' "$TMP/err" &&
	ok "a bad toleration names the file, line and JSON path" || bad "bad toleration message" "$(cat "$TMP/err")"
printf '{"submit_us": 0, "run_us": 1, "priority_class": "urgent", "req": {"cores": 1}}\n' > "$TMP/badpc.jsonl"
"$HETLAB" run -q "$TMP/k8s.json" --trace "$TMP/badpc.jsonl" --out "$TMP/x.db" 2>"$TMP/err"
grep -q "badpc.jsonl:1: \$.priority_class: unknown priority class 'urgent'" "$TMP/err" &&
	ok "an unknown priority class names the file, line and JSON path" || bad "bad priority class" "$(cat "$TMP/err")"
sed 's/dedicated=ml:NoSchedule/dedicated=ml:Sometimes/' "$TMP/k8s.json" > "$TMP/badtaint.json"
"$HETLAB" run -q "$TMP/badtaint.json" --trace "$TMP/k8s.jsonl" --out "$TMP/x.db" 2>"$TMP/err"
grep -q 'node r1-n1 (type "h100", rack "r1"): label node.taints: taint "dedicated=ml:Sometimes": unknown effect' "$TMP/err" &&
	ok "a bad taint names the node, its type and rack" || bad "bad taint message" "$(cat "$TMP/err")"

# ---- man pages and completions -------------------------------------------
nman=0
for f in "$BUILD"/man/*.1; do
	nman=$((nman + 1))
	if command -v man >/dev/null; then
		w=$(man --warnings -l -Tutf8 -Z "$f" 2>&1 >/dev/null)
		[ -z "$w" ] || bad "man page $f has no groff warnings" "$w"
	fi
done
check_eq "a man page per command, and hetlab.1" "$nman" "$(($(grep -vc ' ' "$TMP/list") + 1))"
# the options of `help run` are all in hetlab-run.1
miss=""
for o in $("$HETLAB" help run | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$BUILD/man/hetlab-run.1" || miss="$miss $o"
done
check_eq "hetlab-run.1 lists every option of help run" "$miss" ""
BC=$BUILD/completion/hetlab
bash -n "$BC" && ok "bash completion parses" || bad "bash completion syntax"
comp() { bash -c ". '$BC'; COMP_WORDS=($1); COMP_CWORD=$2; _hetlab; echo \"\${COMPREPLY[*]}\"" 2>&1; }
check_eq "bash: hetlab ru<TAB>" "$(comp 'hetlab ru' 1)" "run"
check_eq "bash: hetlab run --pol<TAB>" "$(comp 'hetlab run --pol' 2)" "--policy="
comp 'hetlab run --policy ""' 3 | grep -qw easy && ok "bash: --policy <TAB> lists the policies" || bad "bash policy words"
check_eq "bash: hetlab trace c<TAB>" "$(comp 'hetlab trace c' 2)" "convert"
check_eq "bash: hetlab report x --format=<TAB>" "$(comp 'hetlab report x --format =' 4)" "text json markdown html"
check_eq "bash: hetlab report x --format=j<TAB>" "$(comp 'hetlab report x --format = j' 5)" "json"
check_eq "bash: hetlab report x --format <TAB>" "$(comp 'hetlab report x --format ""' 4)" "text json markdown html"
if command -v zsh >/dev/null; then
	zsh -n "$BUILD/completion/_hetlab" && ok "zsh completion parses" || bad "zsh completion syntax"
else
	grep -q '^#compdef hetlab' "$BUILD/completion/_hetlab" && ok "zsh completion generated (zsh absent: not parsed)" ||
		bad "zsh completion"
fi

# ---- plans and sweeps: a what-if costing, HTML reports -------------------
# A plan without targets costs its candidates: capex only for what it adds.
cat > "$TMP/cost.json" <<'EOF'
{ "seeds": "1", "out": "cost-out", "fixed": { "$.racks[0].count": 2 },
  "vars": [ { "path": "$.racks[0].count", "min": 2, "max": 3, "cost": 2400000 },
            { "path": "$.racks[1].count", "min": 3, "max": 3, "cost": 700000, "owned": 2 } ],
  "cost": { "energy_price_per_kwh": 0.1 } }
EOF
if "$HETLAB" plan "$TMP/cost.json" > "$TMP/cost.out" 2>"$TMP/err"; then
	grep -q '^what-if costing: 2 candidates, 1 seeds each' "$TMP/cost.out" &&
		grep -q 'capex               140,000  (700,000 over 5 years: $.racks\[1\].count +1 x 700,000)' "$TMP/cost.out" &&
		grep -q 'capex               620,000  (3,100,000 over 5 years: $.racks\[0\].count +1 x 2,400,000, $.racks\[1\].count +1 x 700,000)' "$TMP/cost.out" &&
		grep -q '^x1 = $.racks\[0\].count (2..3; 2 owned; 2,400,000 each added)' "$TMP/cost.out" &&
		! grep -q 'e+0' "$TMP/cost.out" &&
		ok "plan without targets: a what-if costing, capex only for the units added, readable money" ||
		bad "plan costing" "$(cat "$TMP/cost.out")"
	check_eq "report PLANDIR --format html exits 0" "$(rc "$HETLAB" report "$TMP/cost-out" --format html --out "$TMP/cost.html")" 0
	grep -q '<p class="summary">A what-if costing of 2 candidates (no targets): from ' "$TMP/cost.html" &&
		{ ! command -v gnuplot >/dev/null || grep -q '<figure id="fig-plan_cost">' "$TMP/cost.html"; } &&
		ok "report --format html of a costing: the summary, the cost figure" || bad "costing html" "$(grep summary "$TMP/cost.html")"
	check_eq "report PLANDIR --format json exits 2" "$(rc "$HETLAB" report "$TMP/cost-out" --format json)" 2
else
	bad "plan costing runs" "$(cat "$TMP/err")"
fi
cat > "$TMP/sw.json" <<'EOF'
{ "seeds": "1-2", "out": "sw-out", "params": { "$.workload.synthetic.scale.rate": [0.5, 1.0] } }
EOF
if "$HETLAB" sweep "$TMP/sw.json" >/dev/null 2>"$TMP/err"; then
	check_eq "report SWEEPDIR --format html exits 0" "$(rc "$HETLAB" report "$TMP/sw-out" --format html --out "$TMP/sw.html")" 0
	grep -q '<h1>hetlab report: sweep ' "$TMP/sw.html" && grep -q 'gpu_util has its highest mean at point' "$TMP/sw.html" &&
		{ ! command -v gnuplot >/dev/null || [ "$(grep -c '<figure' "$TMP/sw.html")" -gt 1 ]; } &&
		ok "report --format html of a sweep: the best point per metric, the table, the figures inlined" ||
		bad "sweep html" "$(grep -c '<figure' "$TMP/sw.html")"
	check_eq "report SWEEPDIR --format markdown exits 2" "$(rc "$HETLAB" report "$TMP/sw-out" --format markdown)" 2
else
	bad "sweep runs" "$(cat "$TMP/err")"
fi

# ---- the cost of a plain run: the scenario's "cost", the report's lines ---
"$HETLAB" report "$TMP/a.db" > "$TMP/rep" 2>&1
grep -q "^  cost          .* a year at this run's rate (over its window of " "$TMP/rep" &&
	grep -q "^                energy .* kWh a year at the facility, the scenario's tariff; " "$TMP/rep" &&
	grep -q 'maintenance and rack space not priced (the scenario has no "cost"' "$TMP/rep" &&
	ok "report RUN: the energy a year at the run's rate, at the scenario's tariff" ||
	bad "report RUN cost (tariff only)" "$(grep -A2 '^  cost' "$TMP/rep")"
sed 's/"power": {/"cost": {"maintenance_per_node_year": 5000, "space_per_rack_year": 12000}, "power": {/' \
	scenarios/guian.json > "$TMP/cost.json"
if "$HETLAB" run "$TMP/cost.json" --out "$TMP/cost.db" -q >/dev/null 2>"$TMP/err"; then
	"$HETLAB" report "$TMP/cost.db" > "$TMP/rep"
	nodes=$(sqlite3 "$TMP/cost.db" "SELECT count(*) FROM node")
	maint=$(echo $((nodes * 5000)) | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
	grep -q "^                maintenance $maint ($nodes nodes x 5,000), rack space .* racks x 12,000)" "$TMP/rep" &&
		[ "$(sqlite3 "$TMP/cost.db" "SELECT value FROM meta WHERE key = 'cost'")" = \
		  '{"maintenance_per_node_year":5000,"space_per_rack_year":12000}' ] &&
		ok "run with a scenario cost: meta row cost, report prices maintenance and rack space" ||
		bad "report RUN cost (the scenario's terms)" "$(grep -A2 '^  cost' "$TMP/rep")"
	"$HETLAB" report "$TMP/cost.db" --format html --out "$TMP/cost.html" 2>/dev/null &&
		grep -q "<h2>Cost</h2>" "$TMP/cost.html" && grep -q "racks x 12,000" "$TMP/cost.html" &&
		"$HETLAB" report "$TMP/cost.db" --format json | python3 -c 'import json,sys; c=json.load(sys.stdin)["cost"]; assert c["year"] > c["maintenance_year"] > 0' &&
		ok "report RUN --format html and json: the cost section" || bad "report RUN cost html/json"
else
	bad "run with a scenario cost" "$(cat "$TMP/err")"
fi
sed 's/"power": {/"cost": {"life_years": 5}, "power": {/' scenarios/guian.json > "$TMP/cost2.json"
got=$(rc "$HETLAB" run "$TMP/cost2.json" --out "$TMP/cost2.db")
[ "$got" = 1 ] && grep -q 'cost2.json: $.cost.life_years: a scenario.s cost has no capex' "$TMP/err" &&
	ok "a scenario's cost refuses life_years (no capex in a run), naming the path" ||
	bad "scenario cost life_years" "exit $got: $(cat "$TMP/err")"

# ---- make install / uninstall --------------------------------------------
D=$TMP/dest
if [ -f Makefile ] && ${MAKE:-make} -s install DESTDIR="$D" PREFIX=/usr BUILD="$BUILD" >"$TMP/inst" 2>&1; then
	for f in usr/bin/hetlab usr/share/man/man1/hetlab.1 usr/share/man/man1/hetlab-jobs.1 \
	         usr/share/bash-completion/completions/hetlab usr/share/zsh/vendor-completions/_hetlab \
	         usr/share/doc/hetlab/results.md usr/share/hetlab/scenarios/guian.json; do
		[ -f "$D/$f" ] || bad "make install puts $f"
	done
	if [ -d deploy/systemd ] && ls deploy/systemd/*.service >/dev/null 2>&1; then
		[ -n "$(ls "$D"/lib/systemd/system/*.service "$D"/usr/lib/systemd/system/*.service 2>/dev/null)" ] ||
			bad "make install puts the systemd units"
	fi
	"$D/usr/bin/hetlab" help | tail -1 | grep -q "$D/usr/share/doc/hetlab" &&
		ok "make install DESTDIR PREFIX: binary, man pages, completions, docs, examples; help points at the installed docs" ||
		bad "installed help docs line" "$("$D/usr/bin/hetlab" help | tail -1)"
	${MAKE:-make} -s uninstall DESTDIR="$D" PREFIX=/usr BUILD="$BUILD" >/dev/null 2>&1
	left=$(find "$D" -type f | head -3)
	check_eq "make uninstall removes every installed file" "$left" ""
else
	bad "make install DESTDIR" "$(tail -5 "$TMP/inst")"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
