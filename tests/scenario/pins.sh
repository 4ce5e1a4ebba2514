# Sourced by tests/scenario/run.sh (uses its HETLAB, DIR, TMP, REGEN, KTH,
# ok, bad and q). Pins the schedules conservative backfilling makes — every
# job's start, end, nodes and GPU shares — on workloads that reach each of
# its paths: counting mode (the first 6,000 jobs of KTH-SP2), node-level gangs on two node shapes
# (bench/gang.json with the first 3,000 KTH jobs as gangs), the default
# scenario at 1.4x its arrival rates (GPU gangs, services, power, failures)
# and the hetero scenario (MIG, time-sliced shares, NUMA, storage pools,
# best-fit placement). The health monitor's drains and resumes, and the job
# table they shape, are pinned the same way on a scenario where nodes crash
# and jobs fail often (tests/scenario/data/health-stress.json, easy): the
# monitor looks only at the nodes that changed since the last pass and must
# decide as the scan of every node did. The expected tables, tests/scenario/expected/pin-*.tsv.gz,
# were written by the conservative policy of commit bae9ac3 (before its
# reservation profile was rebuilt around per-node timelines); a faster
# profile must give the same schedules. `make golden` rewrites them.

PIN_JOBS="SELECT id, start_us, end_us, node_list, gpu_share FROM job ORDER BY id"

pin() { # name args...
	pin_q "$PIN_JOBS" "$1" conservative "$@"
}

pin_q() { # query name policy name args...
	query=$1
	name=$2
	policy=$3
	shift 4
	db=$TMP/pin-$name.db
	if ! "$HETLAB" run "$@" --policy "$policy" --out "$db" --quiet; then
		bad "pin $name: run"
		return
	fi
	q "$db" "$query" > "$TMP/pin-$name.tsv"
	f=$DIR/expected/pin-$name.tsv.gz
	if [ "$REGEN" = "--regenerate" ]; then
		gzip -9n < "$TMP/pin-$name.tsv" > "$f"
		echo "wrote $f"
	elif [ ! -f "$f" ]; then
		bad "pin $name: schedule" "missing $f (run make golden)"
	elif gzip -dc "$f" | cmp -s - "$TMP/pin-$name.tsv"; then
		ok "pin $name: $policy ($(wc -l < "$TMP/pin-$name.tsv") rows) matches $f"
	else
		bad "pin $name: $policy differs from $f" \
			"$(gzip -dc "$f" | diff - "$TMP/pin-$name.tsv" | head -6 | tr '\n' ' ')"
	fi
}

sh bench/gang-workload.sh "$KTH" 3000 > "$TMP/gang-3000.jsonl"
gzip -dc "$KTH" | awk '/^;/ { print; next } n++ < 6000' > "$TMP/kth-6000.swf"
pin kth-6000 scenarios/kth-sp2.json --trace "$TMP/kth-6000.swf"
pin gang-3000 bench/gang.json --trace "$TMP/gang-3000.jsonl"
pin guian-x1.4 scenarios/guian.json --scale-rate 1.4
pin hetero scenarios/hetero.json
pin_q "SELECT kind, t_us, node, detail FROM event WHERE kind IN ('drain', 'resume') ORDER BY seq" \
	health-drains easy health-drains tests/scenario/data/health-stress.json
pin_q "$PIN_JOBS" health-jobs easy health-jobs tests/scenario/data/health-stress.json
