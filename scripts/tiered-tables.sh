#!/bin/sh
# The two comparisons of the tiered policy in docs/policies.md, measured
# afresh; prints both tables in Markdown.
#
#  1. "An example": the default scenario with "scale": {"rate": 2}, the
#     example's checkpoint and tiered blocks and "horizon_days": 30 (its
#     dev jobs held for dev-runtime never start, and the random node
#     crashes would run the clock on for ever), seed 1, under tiered,
#     slurm, and slurm with priority/multifactor at tiered's weights.
#  2. "tiered against fcfs, easy and slurm on the default cluster": the
#     default scenario at its own load and with --scale-class training=2,
#     seeds 1-3, means over the seeds; and the GPU share of tiered with
#     --param weight_fairshare=0 (submit order) at x2.
#
# "slurm (multifactor)" is --policy slurm with --param
# priority_multifactor=1 weight_age=1000 weight_fairshare=10000
# fair_tree=0: the weights and classic fair share of tiered's offline
# queue. Plain "slurm" is the policy's defaults (priority/basic).
# usage: scripts/tiered-tables.sh [HETLAB] [SCENARIO]
# (default build/hetlab scenarios/guian.json)
set -eu
HETLAB=${1:-build/hetlab}
SCEN=${2:-scenarios/guian.json}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MF="--param priority_multifactor=1 --param weight_age=1000 --param weight_fairshare=10000 --param fair_tree=0"

python3 - "$SCEN" "$TMP/example.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["workload"]["synthetic"]["scale"] = {"rate": 2}
s["checkpoint"] = {"training": {"every_s": 3600, "cost_s": 30, "grace_s": 60},
                   "batch": {"grace_s": 30}, "dev": {"grace_s": 10}}
s["tiered"] = {"reserve": [{"gpu": "H100-SXM-80GB", "gpus": 8}, {"nodes": ["lq-h100-01-n1"]}],
               "dev": {"max_gpus_per_tenant": 2, "max_runtime_s": 14400}}
s["horizon_days"] = 30
json.dump(s, open(sys.argv[2], "w"), indent=1)
EOF
"$HETLAB" run "$TMP/example.json" --policy tiered --seed 1 --out "$TMP/ex-tiered.db" --quiet
"$HETLAB" run "$TMP/example.json" --policy slurm --seed 1 --out "$TMP/ex-slurm.db" --quiet
# shellcheck disable=SC2086
"$HETLAB" run "$TMP/example.json" --policy slurm $MF --seed 1 --out "$TMP/ex-slurmmf.db" --quiet

for k in 1 2; do
	for seed in 1 2 3; do
		for pol in fcfs easy slurm tiered; do
			"$HETLAB" run "$SCEN" --policy $pol --seed $seed --scale-class training=$k \
				--out "$TMP/t-$pol-$k-$seed.db" --quiet
		done
		# shellcheck disable=SC2086
		"$HETLAB" run "$SCEN" --policy slurm $MF --seed $seed --scale-class training=$k \
			--out "$TMP/t-slurmmf-$k-$seed.db" --quiet
		for pol in fcfs easy slurm slurmmf tiered; do
			"$HETLAB" report "$TMP/t-$pol-$k-$seed.db" --format json > "$TMP/t-$pol-$k-$seed.json"
		done
	done
done
# tiered in submit order (no fair-share weight) at x2, for the prose under the table
for seed in 1 2 3; do
	"$HETLAB" run "$SCEN" --policy tiered --param weight_fairshare=0 --seed $seed --scale-class training=2 \
		--out "$TMP/t-tieredfifo-2-$seed.db" --quiet
done

python3 - "$TMP" <<'EOF'
import json, sqlite3, sys
tmp = sys.argv[1]

def one(db, sql):
    return sqlite3.connect(db).execute(sql).fetchone()[0]

def preempted_lost_gpu_h(db):
    # lost work of preempted jobs; a job also requeued by a failure would mix both
    mixed = one(db, "SELECT count(*) FROM job WHERE preemptions > 0 AND restarts > preemptions")
    if mixed:
        print(f"warning: {db}: {mixed} preempted jobs were also requeued by failures", file=sys.stderr)
    return one(db, "SELECT coalesce(sum(lost_gpu_s), 0) / 3600 FROM job WHERE preemptions > 0")

cols = [("tiered", "tiered"), ("slurm", "slurm"), ("slurmmf", "slurm (multifactor)")]
ex = {c: f"{tmp}/ex-{c}.db" for c, _ in cols}
def wait(db, cls):
    return one(db, f"SELECT avg(wait_s) FROM job WHERE class = '{cls}' AND start_us IS NOT NULL")
print("| | " + " | ".join(n for _, n in cols) + " |")
print("| --- |" + " ---: |" * len(cols))
print("| inference wait, mean / max (s) | " + " | ".join(
    "%.1f / %.0f" % (wait(ex[c], "inference"),
                     one(ex[c], "SELECT max(wait_s) FROM job WHERE class = 'inference'")) for c, _ in cols) + " |")
print("| training wait, mean (s) | " + " | ".join("%.0f" % wait(ex[c], "training") for c, _ in cols) + " |")
for cls in ("batch", "dev"):
    print(f"| {cls} wait, mean (s) | " + " | ".join("%.1f" % wait(ex[c], cls) for c, _ in cols) + " |")
def pre(db):
    p = [one(db, f"SELECT coalesce(sum(preemptions), 0) FROM job WHERE class = '{k}'") for k in ("dev", "batch", "training")]
    return "0" if not any(p) else ", ".join(map(str, p))
print("| preemptions (dev, batch, training) | " + " | ".join(pre(ex[c]) for c, _ in cols) + " |")
print("| dev jobs held (`dev-runtime`) | " + " | ".join(
    str(one(ex[c], "SELECT count(*) FROM job WHERE class = 'dev' AND state = 'held'")) if c == "tiered" else "—"
    for c, _ in cols) + " |")
print(f"\n({one(ex['tiered'], 'SELECT count(*) FROM job')} jobs)")
print()

pols = [("fcfs", "fcfs"), ("easy", "easy"), ("slurm", "slurm"), ("slurmmf", "slurm (multifactor)"), ("tiered", "tiered")]
print("| policy | load | SLO violation (s) | GPU share | inference wait (s) | training wait (s) | preemptions | lost GPU-h |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for k in (1, 2):
    for p, name in pols:
        r = []
        for seed in (1, 2, 3):
            db = f"{tmp}/t-{p}-{k}-{seed}.db"
            rep = json.load(open(f"{tmp}/t-{p}-{k}-{seed}.json"))
            r.append((sum(v["slo_violation_s"] for v in rep["services"].values()),
                      one(db, "SELECT avg(1.0 * gpus_alloc / gpus_total) FROM sample WHERE t_us < 7 * 86400e6"),
                      wait(db, "inference"), wait(db, "training"),
                      one(db, "SELECT coalesce(sum(preemptions), 0) FROM job"),
                      preempted_lost_gpu_h(db)))
        m = [sum(x[i] for x in r) / len(r) for i in range(6)]
        print(f"| {name} | ×{k} | {m[0]:,.0f} | {100 * m[1]:.1f} % | {m[2]:,.0f} | {m[3]:,.0f} | {m[4]:.1f} | {m[5]:.2f} |")
share = [one(f"{tmp}/t-tieredfifo-2-{seed}.db",
              "SELECT avg(1.0 * gpus_alloc / gpus_total) FROM sample WHERE t_us < 7 * 86400e6") for seed in (1, 2, 3)]
print(f"\ntiered --param weight_fairshare=0, x2: GPU share {100 * sum(share) / 3:.1f} %")
EOF
