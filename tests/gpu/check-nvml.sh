#!/bin/sh
# check-nvml.sh — run on a machine with NVIDIA GPUs and a driver: runs
# `hetlab probe --json`, prints the GPU part of it, and checks that every GPU
# has a name, a UUID, memory, power, temperature, both temperature
# thresholds (slowdown, shutdown) and utilisation readings. Exit 0 when all
# do; 1 when one lacks any (or no GPU was found); 2 on a usage error or when
# the probe itself fails.
#
#   sh tests/gpu/check-nvml.sh [HETLAB_BINARY]      (default: build/hetlab)
#
# HETLAB_NVML_LIB is passed through (default: libnvidia-ml.so.1). NVML does
# not report utilisation for a GPU in MIG mode: such a GPU's utilisation is
# not required (and said so). Needs python3, or jq.
set -u
bin=${1:-build/hetlab}
if [ ! -x "$bin" ]; then
	echo "check-nvml: $bin: not an executable (build with make, or give the path)" >&2
	exit 2
fi
out=$(mktemp "${TMPDIR:-/tmp}/check-nvml.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
# A probe that hangs (an NVML call that blocks) fails after 120 s.
if command -v timeout > /dev/null 2>&1; then run="timeout 120"; else run=""; fi
$run "$bin" probe --json --interval-ms 500 > "$out"
rc=$?
if [ "$rc" -ne 0 ]; then
	[ "$rc" -eq 124 ] && echo "check-nvml: $bin probe --json did not finish in 120 s" >&2
	echo "check-nvml: $bin probe --json failed (exit status $rc)" >&2
	exit 2
fi

if command -v python3 > /dev/null 2>&1; then
	python3 - "$out" <<'PY'
import json, sys

j = json.load(open(sys.argv[1]))
labels = j["labels"]["gpus"]
readings = {g["index"]: g for g in j["readings"]["gpus"]}
print("node labels:", json.dumps({k: v for k, v in j["node_labels"].items() if k.startswith("gpu.")}))
print("GPUs (labels):")
print(json.dumps(labels, indent=2))
print("GPUs (readings):")
print(json.dumps(j["readings"]["gpus"], indent=2))
for n in j["notes"]:
    print("note:", n)

bad = 0
if not labels:
    print("FAIL: no GPU found")
    sys.exit(1)
for g in labels:
    r = readings.get(g["index"], {})
    mig_on = bool(g.get("mig") and g["mig"].get("current"))
    need = {
        "name": g.get("name") not in (None, "", "?"),
        "uuid": bool(g.get("uuid")),
        "mem_gib": g.get("mem_gib") is not None,
        "power_w": r.get("power_w") is not None,
        "temp_c": r.get("temp_c") is not None,
        "temp_slowdown_c": g.get("temp_slowdown_c") is not None,
        "temp_shutdown_c": g.get("temp_shutdown_c") is not None,
        "util_gpu_pct": mig_on or r.get("util_gpu_pct") is not None,
        "util_mem_pct": mig_on or r.get("util_mem_pct") is not None,
    }
    missing = [k for k, ok in need.items() if not ok]
    note = " (MIG on: utilisation not required)" if mig_on else ""
    if missing:
        bad += 1
        print("FAIL: GPU %d (%s) lacks %s%s" % (g["index"], g.get("name"), ", ".join(missing), note))
    else:
        print("ok: GPU %d (%s, %s)%s" % (g["index"], g["name"], g["uuid"], note))
sys.exit(1 if bad else 0)
PY
	exit $?
fi

if command -v jq > /dev/null 2>&1; then
	jq '{node_labels: (.node_labels | with_entries(select(.key | startswith("gpu.")))),
	     gpus: .labels.gpus, readings: .readings.gpus, notes: .notes}' "$out"
	jq -e '
	  (.readings.gpus | map({key: (.index | tostring), value: .}) | from_entries) as $r
	  | (.labels.gpus | length) > 0 and
	    all(.labels.gpus[]; . as $g | ($r[$g.index | tostring]) as $x
	        | ($g.name // "?") != "?" and ($g.uuid // "") != "" and $g.mem_gib != null
	          and $x.power_w != null and $x.temp_c != null
	          and $g.temp_slowdown_c != null and $g.temp_shutdown_c != null
	          and ((($g.mig // {}).current // false) or ($x.util_gpu_pct != null and $x.util_mem_pct != null)))
	' "$out" > /dev/null && { echo "ok: every GPU has every reading"; exit 0; }
	echo "FAIL: no GPU, or a GPU lacks a reading (see above)"
	exit 1
fi

echo "check-nvml: needs python3 or jq to read the JSON" >&2
exit 2
