#!/bin/sh
# tests/fuzz/run.sh BUILD HETLAB SECONDS [TARGET...] — runs each libFuzzer
# target built into BUILD/fuzz/ for SECONDS seconds (docs/fuzzing.md).
#
# Seeds come from the repository's own files, rebuilt each run under
# BUILD/fuzz/seeds/TARGET: the traces under traces/data (their first lines),
# the scenarios, the JSON examples of docs/*.md, the live job lines, and the
# hand-written seeds of tests/fuzz/seeds/ for formats the repository holds no
# file of (squeue and sinfo output, readings, PAI, spot and DLRM lists). The
# corpus each run grows is kept in BUILD/fuzz/corpus/TARGET for the next;
# crashes go to BUILD/fuzz/crashes/. HETLAB makes what needs a real run (a
# JSON Lines trace, a pruned results file and its audit archive).
#
# Every target runs (FUZZ_JOBS at a time, the cores by default), whatever
# happened before; the last lines are one per target with its executions, and the exit status is 1 when any crashed,
# leaked, timed out or broke an invariant.
set -u
BUILD=$1
HETLAB=$2
SECONDS_EACH=$3
shift 3
TARGETS=${*:-$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')}
F=$BUILD/fuzz
mkdir -p "$F/corpus" "$F/crashes" "$F/seeds" "$F/logs"
# The inputs are written to a file each run: in memory when /dev/shm is there.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then TMPDIR=$(mktemp -d -p /dev/shm); else TMPDIR=$(mktemp -d); fi
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT INT TERM
KTH=traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz
OPENB=traces/data/alibaba-gpu-v2023-openb

# seed TARGET FILE... : copies files into the target's seed folder.
seed() {
	t=$1
	shift
	mkdir -p "$F/seeds/$t"
	for f in "$@"; do
		[ -f "$f" ] && cp "$f" "$F/seeds/$t/$(echo "$f" | tr '/' '_')"
	done
}

# lines TARGET FILE : one seed per non-empty line.
lines() {
	mkdir -p "$F/seeds/$1"
	awk -v d="$F/seeds/$1" -v b="$(basename "$2")" 'NF { f = d "/" b "-" NR; print > f; close(f) }' "$2"
}

# The fenced ```json blocks of the docs, one file each.
doc_json() {
	mkdir -p "$F/seeds/$1"
	for md in docs/*.md; do
		awk -v d="$F/seeds/$1" -v b="$(basename "$md" .md)" '
			/^```json/ { on = 1; n++; f = d "/" b "-" n ".json"; next }
			/^```/ && on { on = 0; close(f); next }
			on { print > f }' "$md"
	done
}

rm -rf "$F/seeds"
mkdir -p "$F/seeds"
for t in squeue sinfo reading jobline livecfg pai spot dlrm; do
	seed "fuzz_$t" tests/fuzz/seeds/$t/*
done
for t in sacct; do
	seed fuzz_squeue tests/fuzz/seeds/$t/*
done
gzip -dc "$KTH" | head -n 60 > "$TMPDIR/kth-head.swf"
gzip -dc "$KTH" | sed -n '1,30p;500,540p' > "$TMPDIR/kth-mid.swf"
seed fuzz_swf "$TMPDIR/kth-head.swf" "$TMPDIR/kth-mid.swf"
head -n 40 "$OPENB/openb_pod_list_default.csv" > "$TMPDIR/pods.csv"
seed fuzz_openb_pods "$TMPDIR/pods.csv"
head -n 40 "$OPENB/openb_node_list_all_node.csv" > "$TMPDIR/nodes-all.csv"
head -n 40 "$OPENB/openb_node_list_gpu_node.csv" > "$TMPDIR/nodes-gpu.csv"
seed fuzz_openb_nodes "$TMPDIR/nodes-all.csv" "$TMPDIR/nodes-gpu.csv"
seed fuzz_k8s tests/data/k8s/pods.json tests/data/k8s/nodes.json
seed fuzz_scenario scenarios/*.json scenarios/live/scenario.json tests/scenario/data/*.json
doc_json fuzz_scenario
seed fuzz_livecfg scenarios/live/live.json
for f in scenarios/live/*.jsonl; do lines fuzz_jobline "$f"; done
if "$HETLAB" trace convert "$TMPDIR/kth-head.swf" "$TMPDIR/kth.jsonl" >/dev/null; then
	head -n 20 "$TMPDIR/kth.jsonl" > "$TMPDIR/kth-20.jsonl"
	seed fuzz_jsonl "$TMPDIR/kth-20.jsonl"
fi
seed fuzz_jsonl tests/fuzz/seeds/jobline/*

# The audit target: a results file of 200 simulated days, pruned, and its
# archive. The first day's 40 jobs make well over one audit block (64
# records; a prune cuts whole blocks): with 3 jobs there it pruned nothing,
# made no archive, and the target ran without its fixture.
A=$F/audit
mkdir -p "$A"
if [ ! -f "$A/run.db" ] || [ ! -f "$A/archive.jsonl" ]; then
	rm -f "$A"/*
	awk 'BEGIN { for (i = 1; i <= 40; i++) printf "%d %d 0 %d %d -1 -1 %d 60 -1 %d 1 1 -1 -1 -1 -1 -1\n", i, 7 * i, 5 + i % 13, 1 + i % 2, 1 + i % 2, i % 5 != 0
		print "41 17280000 0 5 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1" }' > "$A/span.swf"
	cat > "$A/scenario.json" <<-EOF
	{ "name": "audit-fuzz", "sample_interval_s": 0,
	  "node_types": [ { "name": "c", "cores": 4, "mem_gib": 16 } ],
	  "racks": [ { "name": "r", "power_kw": 10, "nodes": [ { "type": "c", "count": 2 } ] } ],
	  "workload": { "trace": "span.swf" } }
	EOF
	"$HETLAB" run "$A/scenario.json" --out "$A/run.db" --quiet &&
		"$HETLAB" audit prune "$A/run.db" --older-than 190 --archive "$A/archive.jsonl.gz" >/dev/null &&
		gzip -dc "$A/archive.jsonl.gz" > "$A/archive.jsonl" ||
		{ echo "fuzz: could not make the audit target's pruned results file and archive"; rm -f "$A"/*; }
fi
seed fuzz_audit "$A/archive.jsonl"
HETLAB_FUZZ_AUDIT_DB=$A/run.db
export HETLAB_FUZZ_AUDIT_DB

# A dictionary per target: the words of its seeds (keys, enums, header fields).
dict() {
	cat "$F/seeds/$1"/* 2>/dev/null | tr -c 'A-Za-z0-9_.:-' '\n' | grep -E '^[A-Za-z_][A-Za-z0-9_.:-]{1,40}$' |
		sort -u | head -n 400 | sed 's/.*/"&"/'
	printf '"{"\n"}"\n"["\n"]"\n":"\n","\n"\\""\n"true"\n"false"\n"null"\n"-1"\n"\\xef\\xbb\\xbf"\n'
}

# one TARGET: runs it; prints what it found into $F/logs/TARGET.res and
# exits 1 when it failed.
one() {
	t=$1
	bin=$F/$t
	res=$F/logs/$t.res
	if [ ! -x "$bin" ]; then
		echo "fuzz: $t is not built ($bin)" >"$res"
		return 1
	fi
	mkdir -p "$F/corpus/$t" "$F/seeds/$t"
	dict "$t" > "$F/$t.dict"
	log=$F/logs/$t.log
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
		-print_final_stats=1 -dict="$F/$t.dict" -artifact_prefix="$F/crashes/$t-" \
		"$F/corpus/$t" "$F/seeds/$t" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		{
			echo "FAIL $t (exit $rc); the end of $log:"
			tail -n 40 "$log"
			echo "$t: FAILED after ${execs:-?} executions (crash input under $F/crashes/)"
		} >"$res"
		return 1
	fi
	echo "$t: ${execs:-?} executions in $SECONDS_EACH s, ${cov:-cov: ?}, $(ls "$F/corpus/$t" | wc -l) corpus inputs, no crash" >"$res"
}

# The targets run FUZZ_JOBS at a time (the machine's cores by default:
# each is one process); their lines are printed in order at the end.
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
failed=0
n=0
pids=""
for t in $TARGETS; do
	echo "== $t: $SECONDS_EACH s"
	one "$t" &
	pids="$pids $!"
	n=$((n + 1))
	if [ "$n" -ge "$JOBS" ]; then
		for p in $pids; do wait "$p" || failed=1; done
		pids=""
		n=0
	fi
done
for p in $pids; do wait "$p" || failed=1; done
echo
for t in $TARGETS; do cat "$F/logs/$t.res" 2>/dev/null || echo "$t: no result"; done
exit $failed
