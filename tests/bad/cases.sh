# tests/bad/cases.sh — the bad-input catalogue, sourced by tests/bad/run.sh
# (tests/bad/README.md). Each case:
#
#   bad NAME STATUS 'MESSAGE' COMMAND [ARG...]
#
# runs COMMAND (hetlab, or sh -c for pipes) in a scratch copy of
# tests/bad/inputs/ and expects exit status STATUS and MESSAGE (a fixed
# string) in its output. `put FILE TEXT` and `scn FILE BODY` write inputs
# first (scn wraps BODY in braces: a scenario); `fifo_line FILE PREFIX N`
# makes FILE a FIFO that a writer fills with one line of PREFIX and N bytes
# (a 1 GiB line without 1 GiB on disk). A message names the file, the line
# or the JSON path, and what was expected.

T='"node_types": [ { "name": "c", "cores": 8, "mem_gib": 64 } ]'
R='"racks": [ { "name": "r", "power_kw": 20, "nodes": [ { "type": "c", "count": 2 } ] } ]'
WL='"workload": { "trace": "ok.swf" }'
S0='"name": "t", "sample_interval_s": 0'

# ---- the command line: hetlab run ----------------------------------------------
bad run-unknown-option 2 'hetlab run: unknown option --bogus' hetlab run --bogus
bad run-missing-value 2 'hetlab run: --seed needs a value' hetlab run --seed
bad run-seed-text 2 "hetlab run: --seed: expected an integer >= 0, got 'abc'" hetlab run --seed abc
bad run-seeds-reversed 2 "hetlab run: --seeds: expected A-B with A <= B (at most 100000 runs), got '5-3'" \
	hetlab run --seeds 5-3 --out seeds
bad run-seeds-no-out 2 'hetlab run: --seeds needs --out DIR' hetlab run --seeds 1-2
bad run-seed-and-seeds 2 'hetlab run: --seed and --seeds together: choose one' hetlab run --seeds 1-2 --seed 3 --out d
bad run-scale-rate-bound 2 "hetlab run: --scale-rate: expected a number in [0, 1e+06], got '1e9'" hetlab run --scale-rate 1e9
bad run-scale-size-negative 2 "hetlab run: --scale-size: expected a number in [0, 1e+06], got '-1'" hetlab run --scale-size -1
bad run-scale-on-trace 1 'hetlab run: --scale-size and --scale-class apply to a synthetic workload, and this run replays a trace' \
	hetlab run base.json --scale-size 2
bad run-scale-class 2 'hetlab run: --scale-class gaming=2: expected CLASS=FACTOR with CLASS one of training, inference, batch, dev and FACTOR >= 0' \
	hetlab run --scale-class gaming=2
bad run-param-form 2 'hetlab run: --param bf_max_job_test: expected NAME=VALUE' hetlab run base.json --param bf_max_job_test
bad run-param-unknown 2 "hetlab run: --param nope=1: policy 'easy' has no parameter 'nope' (it has: bf_max_job_test)" \
	hetlab run base.json --param nope=1
bad run-param-range 2 'hetlab run: --param bf_max_job_test=-5: bf_max_job_test must be in' \
	hetlab run base.json --param bf_max_job_test=-5
bad run-param-number 2 "hetlab run: --param bf_max_job_test=many: expected a number after '='" \
	hetlab run base.json --param bf_max_job_test=many
bad run-policy-unknown 2 "hetlab run: --policy: unknown policy 'nope' (known:" hetlab run base.json --policy nope
bad run-two-scenarios 2 "hetlab run: one scenario only ('base.json' and 'other.json')" hetlab run base.json other.json
bad run-placement-unknown 2 "hetlab run: --placement: unknown placement 'nope' (known: first-fit, best-fit," hetlab run base.json --placement nope
bad run-placement-hint 2 "Try 'hetlab run --help'." hetlab run base.json --placement nope
bad run-param-hint 2 "Try 'hetlab run --help'." hetlab run base.json --param nope=1
scn pplace.json "$S0, \"placement\": \"nope\", $T, $R, $WL"
bad scenario-placement-unknown 1 'hetlab run: unknown placement "nope" (known: first-fit,' hetlab run pplace.json
scn pparam-range.json "$S0, \"policy_params\": { \"bf_max_job_test\": -5 }, $T, $R, $WL"
bad scenario-policy-param-range 1 'pparam-range.json: $.policy_params.bf_max_job_test: bf_max_job_test must be in' \
	hetlab run pparam-range.json
bad run-unknown-flag-last 2 'hetlab run: unknown option --verbose' hetlab run base.json --verbose
bad run-trace-missing 1 'hetlab run: missing.swf: No such file or directory' hetlab run base.json --trace missing.swf

# ---- outputs -------------------------------------------------------------------
bad out-is-trace 2 'hetlab run: --out ok.jsonl is the trace this run reads: the result would replace it' \
	hetlab run base.json --trace ok.jsonl --out ok.jsonl
bad out-is-trace-kept 0 '{"submit_us":0,"req":{"nodes":1,"cores":1},"run_us":1000000}' \
	sh -c '"$HETLAB" run base.json --trace ok.jsonl --out ok.jsonl; cat ok.jsonl'
bad out-is-scenario 2 'hetlab run: --out base.json is the scenario this run reads' hetlab run base.json --out base.json
bad out-is-scenario-other-name 2 'hetlab run: --out ./base.json is the scenario this run reads' hetlab run base.json --out ./base.json
bad out-dir-missing 1 'hetlab run: no/such/dir/run.db: cannot create no/such/dir/run.db.tmp-' hetlab run base.json --out no/such/dir/run.db
bad out-is-directory 1 'hetlab run: outdir: cannot rename outdir.tmp-' sh -c 'mkdir -p outdir && "$HETLAB" run base.json --out outdir'
bad convert-out-is-in 2 'hetlab trace: OUT ok.jsonl is IN: converting a trace onto itself would replace it' \
	hetlab trace convert ok.jsonl ok.jsonl
bad convert-out-suffix 2 'OUT must be a .jsonl file' hetlab trace convert ok.swf out.swf

# ---- scenarios -----------------------------------------------------------------
bad scenario-directory 1 'hetlab run: inputs-dir: is a directory (expected a JSON file)' \
	sh -c 'mkdir -p inputs-dir && "$HETLAB" run inputs-dir'
bad scenario-missing 1 'hetlab run: nope.json: No such file or directory' hetlab run nope.json
put bom.json "$(printf '\357\273\277'){ $S0, $T, $R, $WL }"
bad scenario-bom-accepted 0 'hetlab run: scenario t, policy easy' hetlab run bom.json --out bom.db
put bom-bad.json "$(printf '\357\273\277'){ \"name\": 7, $T, $R, $WL }"
bad scenario-bom-bad-field 1 'hetlab run: bom-bad.json: $.name: expected a string, got an integer' hetlab run bom-bad.json
put syntax.json '{ "name": "t",
  "seed": 1,,
}'
bad scenario-syntax 1 'hetlab run: syntax.json:2:13: ' hetlab run syntax.json
put dupkey.json '{ "name": "t", "name": "u" }'
bad scenario-duplicate-key 1 "hetlab run: dupkey.json:1:21: duplicate object key near '\"name\"'" hetlab run dupkey.json
scn unknown-key.json "$S0, \"polcy\": \"easy\", $T, $R, $WL"
bad scenario-unknown-key 1 'hetlab run: unknown-key.json: $: unknown key "polcy" (expected one of: name,' hetlab run unknown-key.json
scn no-name.json "\"seed\": 1, $T, $R, $WL"
bad scenario-no-name 1 'hetlab run: no-name.json: $.name: missing (expected a string)' hetlab run no-name.json
scn sample-us.json "\"name\": \"t\", \"sample_interval_s\": 0.000001, $T, $R, $WL"
bad scenario-sample-interval-floor 1 'hetlab run: sample-us.json: $.sample_interval_s: expected 0 (no samples) or at least 1 s, got 1e-06' \
	hetlab run sample-us.json
scn sample-neg.json "\"name\": \"t\", \"sample_interval_s\": -5, $T, $R, $WL"
bad scenario-sample-interval-negative 1 'hetlab run: sample-neg.json: $.sample_interval_s: expected a number in [0, 1e+09], got -5' \
	hetlab run sample-neg.json
scn horizon.json "$S0, \"horizon_days\": 1e6, $T, $R, $WL"
bad scenario-horizon 1 'hetlab run: horizon.json: $.horizon_days: expected a number in [0, 100000], got 1e+06' hetlab run horizon.json
scn seed.json "\"name\": \"t\", \"seed\": -1, $T, $R, $WL"
bad scenario-seed 1 'hetlab run: seed.json: $.seed: expected an integer in [0,' hetlab run seed.json
scn policy.json "$S0, \"policy\": \"nope\", $T, $R, $WL"
bad scenario-policy 1 "hetlab run: policy.json: \$.policy: unknown policy 'nope' (known:" hetlab run policy.json
scn pparam.json "$S0, \"policy_params\": { \"bf_max_job_test\": \"x\" }, $T, $R, $WL"
bad scenario-policy-param-type 1 'hetlab run: pparam.json: $.policy_params.bf_max_job_test: expected a number, got a string' \
	hetlab run pparam.json
scn many-racks.json "$S0, $T, \"racks\": [ { \"name\": \"r\", \"count\": 100000, \"power_kw\": 20,
	\"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] } ], \"workload\": { \"trace\": \"ok.jsonl\" }"
bad scenario-100000-racks 0 'hetlab run: scenario t, policy easy, seed 1: 1 jobs on 100000 nodes' \
	hetlab run many-racks.json --out many.db
scn huge.json "$S0, $T, \"racks\": [ { \"name\": \"r\", \"count\": 100000, \"power_kw\": 20,
	\"nodes\": [ { \"type\": \"c\", \"count\": 100000 } ] } ], $WL"
bad scenario-1e5-racks-1e5-nodes 1 'hetlab run: huge.json: $.racks[0]: the racks up to here hold 10000000000 nodes: more than one scenario may hold (at most 1000000 nodes)' \
	hetlab run huge.json
scn racks-cap.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"count\": 60000, \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] },
	{ \"name\": \"b\", \"count\": 60000, \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] } ], $WL"
bad scenario-rack-cap 1 'hetlab run: racks-cap.json: $.racks[1]: the racks up to here number 120000: more than one scenario may hold (at most 100000 racks)' \
	hetlab run racks-cap.json
scn rack-twice.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"count\": 3, \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] },
	{ \"name\": \"a02\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] } ], $WL"
bad scenario-rack-name-twice 1 'hetlab run: rack-twice.json: $.racks[1]: rack name "a02" used twice' hetlab run rack-twice.json
scn node-twice.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] },
	{ \"name\": \"b\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 2, \"names\": [ \"h1\", \"a-n1\" ] } ] } ], $WL"
bad scenario-node-name-twice 1 'hetlab run: node-twice.json: $.racks[1].nodes[0].names[1]: node name "a-n1" is used twice' \
	hetlab run node-twice.json
scn names-count.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 2, \"names\": [ \"h1\" ] } ] } ], $WL"
bad scenario-names-count 1 'hetlab run: names-count.json: $.racks[0].nodes[0].names: expected an array of 2 node names (one per node)' \
	hetlab run names-count.json
scn type-unknown.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"x\", \"count\": 2 } ] } ], $WL"
bad scenario-node-type-unknown 1 'hetlab run: type-unknown.json: $.racks[0].nodes[0]: unknown node type "x" (not in $.node_types)' \
	hetlab run type-unknown.json
scn type-twice.json "$S0, \"node_types\": [ { \"name\": \"c\", \"cores\": 8, \"mem_gib\": 64 }, { \"name\": \"c\", \"cores\": 4, \"mem_gib\": 8 } ], $R, $WL"
bad scenario-node-type-twice 1 'hetlab run: type-twice.json: $.node_types[1]: node type "c" defined twice' hetlab run type-twice.json
scn gpu-unknown.json "$S0, \"node_types\": [ { \"name\": \"c\", \"gpu\": \"Z9000\", \"gpus\": 2, \"cores\": 8, \"mem_gib\": 64 } ], $R, $WL"
bad scenario-gpu-unknown 1 'hetlab run: gpu-unknown.json: $.node_types[0]: unknown GPU model "Z9000" (the catalog has:' \
	hetlab run gpu-unknown.json
scn gpus-no-model.json "$S0, \"node_types\": [ { \"name\": \"c\", \"gpus\": 2, \"cores\": 8, \"mem_gib\": 64 } ], $R, $WL"
bad scenario-gpus-without-model 1 'hetlab run: gpus-no-model.json: $.node_types[0]: "gpus" given without a "gpu" model' \
	hetlab run gpus-no-model.json
scn no-cores.json "$S0, \"node_types\": [ { \"name\": \"c\", \"mem_gib\": 64 } ], $R, $WL"
bad scenario-type-no-cores 1 'hetlab run: no-cores.json: $.node_types[0]: needs "cpu" (a catalog CPU model) or "cores"' \
	hetlab run no-cores.json
scn cooling.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"power_kw\": 20, \"cooling\": \"water\", \"nodes\": [ { \"type\": \"c\", \"count\": 2 } ] } ], $WL"
bad scenario-cooling 1 'hetlab run: cooling.json: $.racks[0].cooling: expected "air" or "liquid", got "water"' hetlab run cooling.json
scn no-power.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"nodes\": [ { \"type\": \"c\", \"count\": 2 } ] } ], $WL"
bad scenario-rack-no-power 1 'hetlab run: no-power.json: $.racks[0].power_kw: missing (expected a number in [0.001, 10000])' \
	hetlab run no-power.json
scn count0.json "$S0, $T, \"racks\": [ { \"name\": \"a\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 0 } ] } ], $WL"
bad scenario-node-count-0 1 'hetlab run: count0.json: $.racks[0].nodes[0].count: expected an integer in [1, 100000], got 0' \
	hetlab run count0.json
scn racks-empty.json "$S0, $T, \"racks\": [], $WL"
bad scenario-racks-empty 1 'hetlab run: racks-empty.json: $.racks: expected a non-empty array' hetlab run racks-empty.json
scn racks-and-trace.json "$S0, $T, $R, \"from_trace\": { \"type\": \"c\" }, $WL"
bad scenario-racks-and-from-trace 1 'hetlab run: racks-and-trace.json: $: expected exactly one of "racks", "from_trace" or "from_inventory"' \
	hetlab run racks-and-trace.json
scn wl-both.json "$S0, $T, $R, \"workload\": { \"trace\": \"ok.swf\", \"synthetic\": { \"days\": 1 } }"
bad scenario-workload-both 1 'hetlab run: wl-both.json: $.workload: expected exactly one of "trace" or "synthetic"' hetlab run wl-both.json
scn no-workload.json "$S0, $T, $R"
bad scenario-no-workload 1 'hetlab run: no-workload.json: $: missing key "workload" (a scenario without one is for `hetlab live`' \
	hetlab run no-workload.json
scn inv-format.json "$S0, \"from_inventory\": { \"file\": \"x.csv\", \"format\": \"csv\", \"gpu_models\": {} }, $WL"
bad scenario-inventory-format 1 'hetlab run: inv-format.json: $.from_inventory.format: expected "openb", "pai", "spot" or "k8s", got "csv"' \
	hetlab run inv-format.json
# Kubernetes history (docs/traces.md, "Kubernetes"): a JSON object is a pod list, named in errors
bad k8s-scenario-as-trace 1 'hetlab run: base.json: kind: expected "List" or "PodList" (kubectl get pods -A -o json), got none' \
	hetlab run base.json --trace base.json
put pods.json '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "p", "namespace": "a", "creationTimestamp": "2024-05-01T10:00:00Z"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "abc"}}}]}}]}'
bad k8s-pod-cpu 1 'hetlab run: pods.json: items[0].spec.containers[0].resources.requests.cpu: expected a CPU quantity such as "500m" or "2", got "abc"' \
	hetlab run base.json --trace pods.json
put nodes.json '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "g1", "labels": {"nvidia.com/gpu.product": "NVIDIA-A30"}}, "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "4"}}}]}'
bad k8s-nodes-as-trace 1 'hetlab run: nodes.json: a Kubernetes Node list (kubectl get nodes -o json), not a Pod list: give it as the cluster' \
	hetlab run base.json --trace nodes.json
scn k8s-inv.json "$S0, \"from_inventory\": { \"file\": \"nodes.json\", \"format\": \"k8s\" }, \"workload\": { \"trace\": \"pods.json\" }"
bad k8s-unknown-product 1 'hetlab run: k8s-inv.json: ./nodes.json: items[0] (node '"'g1'"'): GPU product "NVIDIA-A30" (label nvidia.com/gpu.product) is not in the catalog, whose products are: NVIDIA-H100-80GB-HBM3' \
	hetlab run k8s-inv.json
bad k8s-nodes-no-trace 2 'hetlab run: --nodes without a scenario needs --trace (the pods: kubectl get pods -A -o json)' \
	hetlab run --nodes nodes.json
bad k8s-nodes-racks 2 'hetlab run: --nodes replaces the cluster of a scenario with "from_inventory", and base.json has racks (give no scenario, or one with from_inventory)' \
	hetlab run base.json --nodes nodes.json --trace pods.json
bad k8s-nodes-unknown-product 1 'hetlab run: (--nodes): ./nodes.json: items[0] (node '"'g1'"'): GPU product "NVIDIA-A30"' \
	hetlab run --nodes nodes.json --trace pods.json
bad scenario-too-large 1 'hetlab run: big.json: larger than 64 MiB, the most a JSON input file may be' \
	sh -c 'truncate -s 65M big.json && "$HETLAB" run big.json'
bad scenario-not-object 1 'hetlab run: array.json: $: expected an object, got an array' sh -c 'echo "[1, 2]" > array.json && "$HETLAB" run array.json'

# ---- sweep files -----------------------------------------------------------------
# A point's bad value names the scenario file the point would have, with or
# without --dry-run (which wrote a temporary file and named that).
put sw.json '{ "seeds": "1", "out": "so", "params": { "$.racks[0].count": [1, -1] } }'
bad sweep-point-dry-run 1 'hetlab sweep: sw.json: point 1 ($.racks[0].count=-1): so/point-1/scenario.json: $.racks[0].count: expected an integer in [0, 100000], got -1' \
	hetlab sweep sw.json --dry-run
bad sweep-point-run 1 'hetlab sweep: sw.json: point 1 ($.racks[0].count=-1): so/point-1/scenario.json: $.racks[0].count: expected an integer in [0, 100000], got -1' \
	hetlab sweep sw.json

# ---- metric labels (plan, sweep, compare, report, plot) ----------------------------
# A label value the scenario or the runs do not have is refused before
# anything runs, naming the value and the known ones. In a plan's or a
# sweep's file it is a bad file (1); on the command line a usage error (2).
put swm.json '{ "scenario": "base.json", "seeds": "1", "out": "swm", "params": { "$.policy": ["easy"] },
  "metrics": ["mean_wait", "gpu_util{gpu=A100}"] }'
bad sweep-metric-gpu 1 "hetlab sweep: swm.json: \$.metrics[1]: metric 'gpu_util{gpu=A100}': unknown gpu 'A100'; did you mean 'A100-SXM-80GB'? (known: A100-SXM-80GB)" \
	hetlab sweep swm.json
bad sweep-metric-nothing-run 0 'nothing written' \
	sh -c '"$HETLAB" sweep swm.json 2>/dev/null; [ -e swm ] && echo written || echo nothing written'
put swc.json '{ "scenario": "base.json", "seeds": "1", "out": "swc", "params": { "$.policy": ["easy"] },
  "metrics": ["p95_wait{class=inferense}"] }'
bad sweep-metric-class-dry-run 1 "\$.metrics[0]: metric 'p95_wait{class=inferense}': unknown class 'inferense'; did you mean 'inference'? (known: training, inference, batch, dev)" \
	hetlab sweep swc.json --dry-run
put swr.json '{ "scenario": "base.json", "seeds": "1", "out": "swr", "params": { "$.racks[0].count": [1, 2] },
  "metrics": ["warn_h{rack=rack}"] }'
bad sweep-metric-rack 1 "metric 'warn_h{rack=rack}': unknown rack 'rack' (known: r01, r02)" hetlab sweep swr.json --dry-run
put plm.json '{ "scenario": "base.json", "seeds": "1-2", "out": "plm",
  "vars": [ { "path": "$.racks[0].count", "min": 1, "max": 2, "cost": 1000 } ],
  "targets": [ { "metric": "p95_wait{class=training}", "max": 3600 }, { "metric": "gpu_util{type=gpu}", "min": 0.1 } ] }'
bad plan-target-type 1 "hetlab plan: plm.json: \$.targets[1]: \"metric\": metric 'gpu_util{type=gpu}': unknown type 'gpu'; did you mean 'g'? (known: c, g)" \
	hetlab plan plm.json
bad plan-target-nothing-run 0 'nothing written' \
	sh -c '"$HETLAB" plan plm.json 2>/dev/null; [ -e plm ] && echo written || echo nothing written'
bad compare-metric-class 2 "hetlab compare: metric 'p95_wait{class=inferense}': unknown class 'inferense'; did you mean 'inference'?" \
	sh -c '"$HETLAB" run base.json --seeds 1-2 --out cA -q && "$HETLAB" run base.json --seeds 1-2 --out cB -q &&
	       "$HETLAB" compare cA cB --metric "p95_wait{class=inferense}"'
bad compare-metric-gpu 2 "hetlab compare: metric 'gpu_util{gpu=H100-SXM-80GB}': unknown gpu 'H100-SXM-80GB'; did you mean 'A100-SXM-80GB'? (known: A100-SXM-80GB)" \
	sh -c '"$HETLAB" run base.json --seeds 1-2 --out gA -q && "$HETLAB" run base.json --seeds 1-2 --out gB -q &&
	       "$HETLAB" compare gA gB --metric "gpu_util{gpu=H100-SXM-80GB}"'
bad compare-metric-hint 2 "Try 'hetlab compare --help'." \
	sh -c '"$HETLAB" run base.json --seeds 1-2 --out hA -q && "$HETLAB" run base.json --seeds 1-2 --out hB -q &&
	       "$HETLAB" compare hA hB --metric "p95_wait{tenant=nobody}"'
put swok.json '{ "scenario": "base.json", "seeds": "1", "out": "swok", "params": { "$.policy": ["easy"] } }'
bad report-metric-gpu 2 "hetlab report: metric 'gpu_util{gpu=A100}': unknown gpu 'A100'; did you mean 'A100-SXM-80GB'? (known: A100-SXM-80GB)" \
	sh -c '"$HETLAB" sweep swok.json >/dev/null 2>&1; "$HETLAB" report swok --metric "gpu_util{gpu=A100}"'
bad report-metric-unknown 2 "hetlab report: unknown metric 'p95_wiat' (hetlab compare --list-metrics lists them)" \
	sh -c '"$HETLAB" sweep swok.json >/dev/null 2>&1; "$HETLAB" report swok --metric p95_wiat'
bad report-metric-out-not-written 0 'nothing written' \
	sh -c '"$HETLAB" sweep swok.json >/dev/null 2>&1; "$HETLAB" report swok --metric "failed{reason=om}" --out rep.txt 2>/dev/null;
	       [ -e rep.txt ] && echo written || echo nothing written'
bad plot-metric-class 2 "hetlab plot: metric 'p95_wait{class=dev1}': unknown class 'dev1'; did you mean 'dev'?" \
	sh -c '"$HETLAB" sweep swok.json >/dev/null 2>&1; "$HETLAB" plot swok -o figs --metric "p95_wait{class=dev1}"'

# ---- traces --------------------------------------------------------------------
put int64.jsonl '{"submit_us":0,"req":{"nodes":1,"cores":1},"run_us":9223372036854775807}'
bad jsonl-run-int64-max 1 'hetlab run: int64.jsonl:1: $.run_us: expected a non-negative integer (microseconds) of at most 1000000000000000 (1000000000 s, about 31.7 years), got 9223372036854775807' \
	hetlab run --trace int64.jsonl
put wall.jsonl '{"submit_us":0,"req":{"nodes":1,"cores":1},"run_us":5,"walltime_us":2000000000000000}'
bad jsonl-walltime-bound 1 'hetlab run: wall.jsonl:1: $.walltime_us: expected a positive integer (microseconds) or null of at most 1000000000000000' \
	hetlab run base.json --trace wall.jsonl
put submit.jsonl '{"submit_us":1000000000000001,"req":{"nodes":1,"cores":1},"run_us":5}'
bad jsonl-submit-bound 1 'hetlab run: submit.jsonl:1: $.submit_us: expected a non-negative integer (microseconds) of at most' \
	hetlab run base.json --trace submit.jsonl
fifo_line huge.jsonl '{"submit_us":0,"x":"' 1073741824
bad jsonl-1gib-line 1 'hetlab run: huge.jsonl:1: line longer than 1048576 bytes, the most a line may hold (docs/traces.md, "Limits")' \
	hetlab run base.json --trace huge.jsonl
put colour.jsonl '{"submit_us":0,"req":{"cores":1},"run_us":5,"colour":"red"}'
bad jsonl-unknown-key 1 'hetlab run: colour.jsonl:1: $.colour: unknown key' hetlab run base.json --trace colour.jsonl
put nosubmit.jsonl '{"submit_us":0,"req":{"cores":1},"run_us":5}
{"req":{"cores":1},"run_us":5}'
bad jsonl-missing-submit 1 'hetlab run: nosubmit.jsonl:2: $.submit_us: missing (required)' hetlab run base.json --trace nosubmit.jsonl
put syntax.jsonl '{"submit_us":0,"req":{"cores":1},"run_us":5}
{"submit_us":0,"req":{"cores":1},"run_us":5'
bad jsonl-syntax 1 'hetlab run: syntax.jsonl:2:' hetlab run base.json --trace syntax.jsonl
put header-late.jsonl '{"submit_us":0,"req":{"cores":1},"run_us":5}
{"header":{"max_procs":4}}'
bad jsonl-header-late 1 'hetlab run: header-late.jsonl:2: $.header: a header line must come before the jobs' \
	hetlab run base.json --trace header-late.jsonl
put wall0.jsonl '{"submit_us":0,"req":{"cores":1},"run_us":5,"walltime_us":0}'
bad jsonl-walltime-zero 1 'hetlab run: wall0.jsonl:1: $.walltime_us: expected a positive integer (microseconds) or null, got 0' \
	hetlab run base.json --trace wall0.jsonl
put gpus-spread.jsonl '{"submit_us":0,"req":{"cores":1,"gpus":2},"run_us":5}'
bad jsonl-spread-gpus 1 'hetlab run: gpus-spread.jsonl:1: $.req.gpus: a spread request (nodes 0) cannot ask for GPUs' \
	hetlab run base.json --trace gpus-spread.jsonl
put label.jsonl '{"submit_us":0,"req":{"nodes":1,"cores":1,"require":"gpu.model =="},"run_us":5}'
bad jsonl-label-expression 1 "hetlab run: label.jsonl:1: \$.req.require: bad label expression 'gpu.model =='" \
	hetlab run base.json --trace label.jsonl
put pool.jsonl '{"submit_us":0,"req":{"nodes":1,"cores":1,"pool":"nvme"},"run_us":5}'
bad jsonl-pool-unknown 1 'hetlab run: pool.jsonl: job 0: storage pool "nvme" is not in the scenario (it has: none)' \
	hetlab run base.json --trace pool.jsonl
put mig.jsonl '{"submit_us":0,"req":{"nodes":1,"gpus":1,"mig":"9g"},"run_us":5}'
bad jsonl-mig 1 "hetlab run: mig.jsonl:1: \$.req.mig: expected compute slices 1..7 as a number, or a MIG profile such as \"3g\" or \"3g.40gb\", got '9g'" \
	hetlab run base.json --trace mig.jsonl
put fields.swf '1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1'
bad swf-field-count 1 'hetlab run: fields.swf:1: expected 18 fields, got 17 (field 18 (think time) is missing)' \
	hetlab run base.json --trace fields.swf
put runtime.swf '; MaxProcs: 8
1 0 0 9223372036854 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1'
bad swf-run-time-bound 1 "hetlab run: runtime.swf:2: field 4 (run time): expected -1 or a non-negative integer (seconds, at most 10^9), got '9223372036854'" \
	hetlab run base.json --trace runtime.swf
put status.swf '1 0 0 10 1 -1 -1 1 60 -1 9 1 1 -1 -1 -1 -1 -1'
bad swf-status 1 "hetlab run: status.swf:1: field 11 (status): expected a status in -1..5 (1 completed, 0 failed, 5 cancelled), got '9'" \
	hetlab run base.json --trace status.swf
put header.swf '; MaxProcs: lots'
bad swf-header 1 "hetlab run: header.swf:1: header MaxProcs: expected a non-negative integer (or -1, unknown), got 'lots'" \
	hetlab run base.json --trace header.swf
bad swf-nul-byte 1 'hetlab run: nul.swf:2: NUL byte in line (binary file?)' \
	sh -c 'printf "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n2 \000 0\n" > nul.swf && "$HETLAB" run base.json --trace nul.swf'
bad swf-truncated-gzip 1 '(truncated gzip file?)' \
	sh -c 'gzip -c ok.swf | head -c 30 > cut.swf.gz && "$HETLAB" run base.json --trace cut.swf.gz'
bad swf-long-line 1 'hetlab run: long.swf:1: line longer than 1048576 bytes' \
	sh -c 'head -c 2000000 /dev/zero | tr "\000" " " > long.swf && "$HETLAB" run base.json --trace long.swf'
bad swf-lenient-all-malformed 0 'hetlab run: warning: the trace fields.swf has no jobs (1 lines read, 1 skipped as malformed, 0 unusable)' \
	hetlab run base.json --trace fields.swf --lenient --out lenient.db
# Extended SWF (the MetaCentrum logs): Unix times, memory-unit notes, field 21
put unix.swf '1 1356998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
2 2400000000 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1'
bad swf-unix-time-span 1 "hetlab run: unix.swf:2: field 2 (submit time): 2400000000 is more than 10^9 s from the first job's 1356998400 (the log's submit times are Unix times)" \
	hetlab run base.json --trace unix.swf
put unix-ok.swf '1 1356998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1'
bad swf-unix-time-note 0 'hetlab run: note: unix-ok.swf: submit times are Unix times (the first job'"'"'s is 10^8 s or more): rebased to the first submit, 1356998400 (2013-01-01 00:00:00 UTC)' \
	hetlab run base.json --trace unix-ok.swf --out unix.db
put site.swf '1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1 {1} q_1d nodes=1:ppn=eight'
bad swf-site-request 1 "hetlab run: site.swf:1: field 21 (site request): ppn: expected a positive integer, got 'eight'" \
	hetlab run base.json --trace site.swf
put memnote.swf '; Note: memory is in bytes per job
; Note: requested memory is in KB per processor'
bad swf-mem-note-conflict 1 'hetlab run: memnote.swf:2: header: the memory unit KB per processor contradicts bytes per job (line 1)' \
	hetlab run base.json --trace memnote.swf
put bigmem.swf '1 0 0 10 1 -1 -1 1 60 8000000000000000000 1 1 1 -1 -1 -1 -1 -1'
scn mem-req.json "$S0, $T, $R, \"workload\": { \"trace\": \"bigmem.swf\", \"swf\": { \"memory\": \"requested\" } }"
bad swf-mem-too-large 1 'hetlab run: ./bigmem.swf:1: field 10 (requested memory): 8000000000000000000 KB per processor is more than 2^40 MiB a core' \
	hetlab run mem-req.json
scn mem-unit.json "$S0, $T, $R, \"workload\": { \"trace\": \"ok.swf\", \"swf\": { \"memory_unit\": \"bytes\" } }"
bad swf-memory-unit-value 1 'hetlab run: mem-unit.json: $.workload.swf.memory_unit: expected UNIT/PER, UNIT one of bytes, KB, MB, GB and PER one of proc, node, job (the SWF spec'"'"'s is "KB/proc"), got "bytes"' \
	hetlab run mem-unit.json
put miss.sacct 'JobID|Partition|State|Submit|Start|End|NCPUS
7|gpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1'
scn slurm-miss.json "$S0, $T, $R, \"workload\": { \"trace\": \"miss.sacct\", \"slurm\": { \"partition_label\": \"partition\" } }"
bad sacct-partition-missing 1 "hetlab run: ./miss.sacct: JobID 7 needs partition 'gpu', which no node of the scenario has (node labels: partition = (none))" \
	hetlab run slurm-miss.json
bad sacct-partition-missing-lenient 0 "hetlab run: warning: ./miss.sacct: JobID 7 needs partition 'gpu', which no node" \
	hetlab run slurm-miss.json --lenient --out miss.db
scn slurm-run.json "$S0, $T, $R, \"workload\": { \"trace\": \"miss.sacct\", \"slurm\": { \"preempted_run\": \"all\" } }"
bad sacct-preempted-run 1 'hetlab run: slurm-run.json: $.workload.slurm.preempted_run: expected "elapsed" or "estimate", got "all"' \
	hetlab run slurm-run.json
scn slurm-log.json "$S0, $T, $R, \"workload\": { \"trace\": \"miss.sacct\", \"slurm\": { \"ctld_log\": \"nolog.log\" } }"
bad sacct-ctld-log-missing 1 'nolog.log' hetlab run slurm-log.json
put late.jsonl '{"submit_us":999999999000000,"req":{"nodes":1,"cores":1},"run_us":5}'
scn sample-1s.json "\"name\": \"t\", \"sample_interval_s\": 1, $T, $R, \"workload\": { \"trace\": \"late.jsonl\" }"
bad run-sample-rows-cap 1 'hetlab run: sampling every 1 s until the last job arrives (day 11574.1) takes 2e+09 rows (sample and rack_sample), more than a run records (50000000): raise $.sample_interval_s or set $.horizon_days' \
	hetlab run sample-1s.json --out late.db
bad trace-directory 1 'hetlab run: tracedir: is a directory (expected a file)' \
	sh -c 'mkdir -p tracedir && "$HETLAB" run base.json --trace tracedir'
bad trace-empty-warns 0 'hetlab run: warning: the trace empty.swf has no jobs (0 lines read, 0 skipped as malformed, 0 unusable): the result holds an empty run' \
	sh -c ': > empty.swf && "$HETLAB" run base.json --trace empty.swf --out empty.db'
put comments.swf '; Version: 2.2
; MaxProcs: 8'
bad trace-comments-only-warns 0 'hetlab run: warning: the trace comments.swf has no jobs (2 lines read' \
	hetlab run base.json --trace comments.swf --out comments.db
put pods.csv 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
openb-pod-1,4000,8192,1,500,,BE,Succeeded,100,x,150'
bad openb-pods-field 1 "hetlab run: pods.csv:2: field 10 (deletion_time): expected empty or a time in seconds (>= 0, at most 10^9), got 'x'" \
	hetlab run base.json --trace pods.csv
put pods-time.csv 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
openb-pod-1,4000,8192,1,500,,BE,Succeeded,1000000001,1000000002,1000000001'
bad openb-pods-time-bound 1 "hetlab run: pods-time.csv:2: field 9 (creation_time): expected a time in seconds (>= 0, at most 10^9), got '1000000001'" \
	hetlab run base.json --trace pods-time.csv
put dlrm.csv 'instance_sn,role,app_name
instance_0,HN,app_0'
bad dlrm-header 1 "hetlab run: dlrm.csv:1: not the DLRM trace header (a .csv trace is Alibaba's disaggregated_DLRM_trace.csv or an openb pod list): column 4 is '', expected 'cpu_request'" \
	hetlab run base.json --trace dlrm.csv

# ---- node inventories ------------------------------------------------------------
put spot.csv 'gpu_model,gpu_capacity_num,cpu_num,node_name
A10,1,128,n1
A10,x,128,n2'
scn inv-spot.json "$S0, \"from_inventory\": { \"file\": \"spot.csv\", \"format\": \"spot\", \"mem_gib\": 64, \"gpu_models\": { \"A10\": \"A10-24GB\" } }, $WL"
bad inventory-spot-field 1 "hetlab run: inv-spot.json: ./spot.csv:3: field 2 (gpu_capacity_num): expected an integer in 0..64, got 'x'" \
	hetlab run inv-spot.json
put pai.csv 'm1,V100M32,96,384,8
m1,V100M32,96,384,8'
scn inv-pai.json "$S0, \"from_inventory\": { \"file\": \"pai.csv\", \"format\": \"pai\", \"gpu_models\": { \"V100M32\": \"V100-SXM2-32GB\" } }, $WL"
bad inventory-pai-duplicate 1 "hetlab run: inv-pai.json: ./pai.csv:2: node name 'm1' is already used at line 1 (node names must be unique)" \
	hetlab run inv-pai.json
put spot-long.csv "gpu_model,gpu_capacity_num,cpu_num,node_name"
bad inventory-long-line 1 'spot-long.csv:2: line longer than 1048576 bytes' \
	sh -c 'head -c 1100000 /dev/zero | tr "\000" x >> spot-long.csv && sed "s/spot.csv/spot-long.csv/" inv-spot.json > inv-long.json && "$HETLAB" run inv-long.json'

# ---- submissions (hetlab submit, no daemon needed) ------------------------------
bad submit-no-job 2 "hetlab submit: give --job '{...}' or a JOBS.jsonl file (- for stdin)" hetlab submit --state st
bad submit-unknown-option 2 "hetlab submit: unknown option --jb" hetlab submit --state st --jb x
bad submit-syntax 1 'hetlab submit: --job:1:' hetlab submit --state st --job '{"req": {'
bad submit-not-object 1 'hetlab submit: --job:1: $: expected a job object' hetlab submit --state st --job '[1]'
bad submit-no-argv 1 'argv' hetlab submit --state st --job '{"req": {"nodes": 1, "cores": 1}}'
bad submit-argv-type 1 'argv' hetlab submit --state st --job '{"req": {"nodes": 1, "cores": 1}, "argv": "sleep 1"}'
bad submit-env-type 1 'env' hetlab submit --state st --job '{"req": {"nodes": 1, "cores": 1}, "argv": ["true"], "env": {"A": 1}}'
bad submit-unknown-key 1 'hetlab submit: --job:1: $.colour: unknown key' \
	hetlab submit --state st --job '{"req": {"nodes": 1, "cores": 1}, "argv": ["true"], "colour": "red"}'
bad submit-run-bound 1 'hetlab submit: --job:1: $.walltime_us: expected a positive integer (microseconds) or null of at most' \
	hetlab submit --state st --job '{"req": {"nodes": 1, "cores": 1}, "argv": ["true"], "walltime_us": 9223372036854775807}'
put jobs.jsonl '{"req": {"nodes": 1, "cores": 1}, "argv": ["true"]}
{"req": {"nodes": 1, "cores": 0}, "argv": ["true"]}'
bad submit-file-line 1 'hetlab submit: jobs.jsonl:2: $.req: expected cores > 0 or gpus > 0' hetlab submit --state st jobs.jsonl
bad submit-too-big 1 'the request exceeds every node of the cluster: it could never run' \
	hetlab submit --config live.json --job '{"req": {"nodes": 1, "cores": 9999}, "argv": ["true"]}'
put live-pending.json '{ "scenario": "base.json", "executor": "local", "state_dir": "state-cfg", "max_pending_per_user": "many" }'
bad live-max-pending 1 'hetlab live: live-pending.json: $.max_pending_per_user: expected an integer in [0, 100000000], got a string' \
	hetlab live --config live-pending.json --max-s 1

# ---- Slurm twins (hetlab twin build; the "slurm" block under hetlab run) ---------
put t.conf 'NodeName=n[1-2] CPUs=4 RealMemory=1000
PartitionName=p Nodes=ALL Default=YES
PriorityWeightTRES=CPU=1'
put t.sacct 'JobID|Partition|QOS|User|Account|Submit|Start|End|NCPUS|NNodes
1|p|normal|u|a|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|2|1
2|gpu|normal|u|a|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|2|1'
put t1.sacct 'JobID|Partition|QOS|User|Account|Submit|Start|End|NCPUS|NNodes
1|p|gold|u|a|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|2|1'
put t-bad.conf 'NodeName=n[1-2] CPUs=4
PartitionName=p Nodes=ALL MaxTime=soon'
bad twin-conf-value 1 "hetlab twin build: t-bad.conf:2: MaxTime: expected a time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED), got 'soon'" \
	hetlab twin build --slurm-conf t-bad.conf --sacct t1.sacct --out tw.json
bad twin-warning 0 'hetlab twin build: warning: t.conf:3: PriorityWeightTRES is not modelled' \
	hetlab twin build --slurm-conf t.conf --sacct t1.sacct --out tw.json
bad twin-job-partition 1 "hetlab twin build: t.sacct: JobID 2: partition 'gpu' is not in the twin (slurm.conf has: p)" \
	hetlab twin build --slurm-conf t.conf --sacct t.sacct --out tw.json
put plain.log '[2026-01-01T10:00:00] _slurm_rpc_submit_batch_job: JobId=7 InitPrio=1'
bad twin-ctld-log-no-ms 1 "plain.log: no submission line has a millisecond time stamp (expected slurmctld's log with LogTimeFormat=iso8601_ms" \
	hetlab twin build --slurm-conf t.conf --sacct t1.sacct --ctld-log plain.log --out tw.json
bad twin-missing-file 1 'hetlab twin build: missing.conf: No such file or directory' \
	hetlab twin build --slurm-conf missing.conf --sacct t1.sacct --out tw.json
bad twin-usage 2 'hetlab twin build: needs --slurm-conf FILE, --sacct FILE and --out TWIN.json' \
	hetlab twin build --slurm-conf t.conf --out tw.json
bad twin-gpu-model 2 "hetlab twin build: --gpu-model: expected TYPE=MODEL (a GRES type and a catalog GPU model), got 'a100'" \
	hetlab twin build --slurm-conf t.conf --sacct t1.sacct --out tw.json --gpu-model a100
scn slurm-qos.json "$S0, \"policy\": \"easy\", \"node_types\": [ { \"name\": \"c\", \"cores\": 4, \"mem_gib\": 1 } ], \"racks\": [ { \"name\": \"r\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 2, \"names\": [\"n1\", \"n2\"] } ] } ], \"slurm\": { \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"n[1-2]\"] } ] }, \"workload\": { \"trace\": \"t1.sacct\" }"
bad run-slurm-job-qos 1 "hetlab run: ./t1.sacct: JobID 1: QOS 'gold' is not in the twin (sacctmgr show qos has: normal)" \
	hetlab run slurm-qos.json --out r.db
bad run-slurm-node 1 'hetlab run: slurm-node.json: $.slurm.partitions[0].nodes[0]: node "n3" is not in the cluster (it has: n1, n2)' \
	sh -c 'sed "s/n\[1-2\]\"\]/n[1-3]\"]/" slurm-qos.json > slurm-node.json && "$HETLAB" run slurm-node.json --out r.db'
