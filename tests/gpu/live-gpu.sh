#!/bin/sh
# live-gpu.sh — run on a machine with NVIDIA GPUs: the live daemon with the
# local executor and this host's probes (NVML session included) on a
# one-node scenario of this host's GPUs. Checks that a GPU job gets
# CUDA_VISIBLE_DEVICES with the card the policy chose and sees that GPU,
# that a second GPU job waits for the card when there is one, that the
# host reading carries the GPUs' power and temperature, and that the replay
# of the recording makes the same decisions.
#
#   sh tests/gpu/live-gpu.sh [HETLAB] [GPU_MODEL] [NGPUS]
#   (defaults: build/hetlab, H200-SXM-141GB, the count nvidia-smi -L gives)
#
# Exit 0 when every check passes, 1 otherwise.
set -u
HETLAB=${1:-build/hetlab}
MODEL=${2:-H200-SXM-141GB}
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
N=${3:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "${N:-0}" -ge 1 ] || { echo "live-gpu: no GPU (nvidia-smi -L lists none)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-gpu-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   gpu: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL gpu: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
cd "$T" || exit 1
cat >scn.json <<EOF
{ "name": "gpu-host", "seed": 1, "policy": "tiered",
  "node_types": [ { "name": "gpu", "gpu": "$MODEL", "gpus": $N, "cpu": "Xeon-8480+", "sockets": 1, "cores": 8, "mem_gib": 64 } ],
  "racks": [ { "name": "r", "power_kw": 40, "cooling": "liquid", "nodes": [ { "type": "gpu", "count": 1, "names": ["this"] } ] } ] }
EOF
printf '{ "scenario": "scn.json", "state_dir": "st", "tick_s": 0.05, "probe_every_s": 0.5, "record_every_s": 0.5, "probes": "host" }\n' >live.json
job() { # seconds
	printf '{"class": "batch", "req": {"nodes": 1, "cores": 1, "gpus": %s}, "argv": ["sh", "-c", "echo cuda=$CUDA_VISIBLE_DEVICES; nvidia-smi -L; sleep %s"]}\n' "$N" "$1"
}
{ job 2; job 0; } >jobs.jsonl
"$HETLAB" submit --config live.json jobs.jsonl >/dev/null || bad "submit"
timeout 60 "$HETLAB" live --config live.json --exit-when-idle 2>log
[ $? -eq 0 ] && ok "daemon ran the jobs and exited" || bad "daemon ran the jobs and exited" "$(tail -n 5 log)"
want=$(seq -s, 0 $((N - 1)))
got=$(grep -h '^cuda=' st/jobs/0.out)
[ "$got" = "cuda=$want" ] && ok "CUDA_VISIBLE_DEVICES is the allocated cards ($want)" || bad "CUDA_VISIBLE_DEVICES" "got '$got', want cuda=$want"
seen=$(grep -c '^GPU ' st/jobs/0.out)
[ "$seen" -eq "$N" ] && ok "the job sees its $N GPU(s)" || bad "the job sees its GPUs" "$(cat st/jobs/0.out)"
s0=$(sqlite3 st/state.db "SELECT end_us FROM jobs WHERE id = 0" 2>/dev/null || echo)
s1=$(sqlite3 st/state.db "SELECT start_us FROM jobs WHERE id = 1" 2>/dev/null || echo)
if [ -n "$s0" ] && [ -n "$s1" ]; then
	[ "$s1" -ge "$s0" ] && ok "the second job waited for the cards" || bad "the second job waited" "start $s1 < end $s0"
fi
"$HETLAB" queue --state st --all
r=$("$HETLAB" replay st 2>&1) && ok "replay makes the same decisions" || bad "replay" "$r"
rd=$("$HETLAB" probe --reading --interval-ms 500)
echo "reading: $rd"
case $rd in *power_w*temp_c*) ok "the host reading has power and temperature" ;; *) bad "host reading" "$rd" ;; esac
echo "gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
