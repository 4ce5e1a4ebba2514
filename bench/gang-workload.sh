#!/bin/sh
# bench/gang-workload.sh SWF[.gz] [MAX_JOBS] > OUT.jsonl — a gang workload for
# bench/gang.json (68 nodes: 32 of 16 cores, 36 of 8) made from an SWF log
# of single-processor nodes (KTH-SP2: 100 processors): every job keeps its
# submit time, run time, user estimate and user, and its p processors become
# 8p cores as a gang of whole-node shares, 4 GiB per core:
#
#   p = 1              1 node  x  8 cores   (any node)
#   p even, p <= 64    p/2 nodes x 16 cores (the 16-core nodes only)
#   p odd,  p <= 64    p nodes  x  8 cores  (any nodes)
#   p > 64             as p = 64 (320 of KTH's 28,476 jobs; no gang of more
#                      nodes fits)
#
# Jobs without a processor count or with a negative run time are skipped, as
# the SWF reader skips them. Bench-only: the trace readers are not involved.
set -eu
src=${1:?usage: gang-workload.sh SWF[.gz] [MAX_JOBS]}
max=${2:-0}
case $src in
*.gz) cat_=zcat ;;
*) cat_=cat ;;
esac
$cat_ "$src" | awk -v max="$max" '
/^;/ || NF < 18 { next }
{
	p = ($5 > 0) ? $5 : $8
	if (p <= 0 || $4 < 0) next
	if (p > 64) p = 64
	if (p == 1) { n = 1; c = 8 }
	else if (p % 2 == 0) { n = p / 2; c = 16 }
	else { n = p; c = 8 }
	wall = ($9 > 0) ? sprintf("%.0f", $9 * 1e6) : "null"
	printf "{\"trace_id\":%d,\"submit_us\":%.0f,\"run_us\":%.0f,\"walltime_us\":%s,\"tenant\":%d,\"req\":{\"nodes\":%d,\"cores\":%d,\"mem_mib\":%d}}\n", \
	       $1, $2 * 1e6, $4 * 1e6, wall, ($12 > 0 ? $12 : 0), n, c, c * 4096
	if (max > 0 && ++k >= max) exit
}'
