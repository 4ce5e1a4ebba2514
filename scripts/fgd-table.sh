#!/bin/sh
# The FGD allocation-ratio table of docs/validation.md: hetlab frag on every
# openb pod list of the trace directory that the published results cover
# (traces/data/alibaba-gpu-v2023-openb/published_alloc.csv), 6 policies x
# seeds 42-51, at 100 % and 130 % arrived, hetlab against the published mean,
# difference in percentage points. Prints a Markdown table and a summary:
# the differences, the seed-to-seed standard deviation of hetlab's cells
# (the noise floor: the standard error of a 10-seed mean is sd / sqrt(10)),
# and each cell outside ±0.5 pp with its difference in standard errors.
# usage: scripts/fgd-table.sh [HETLAB] [TRACE_DIR] [-j N]
set -eu
HETLAB=${1:-build/hetlab}
DIR=${2:-${HETLAB_TRACES:-../shared/traces}/alibaba-gpu-v2023-openb}
JOBS=${4:-2}
REF=traces/data/alibaba-gpu-v2023-openb/published_alloc.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
lists=$(grep -v '^#' "$REF" | tail -n +2 | cut -d, -f1 | sort -u)
echo "| pod list | policy | hetlab 100 % | paper 100 % | diff (pp) | hetlab 130 % | paper 130 % | diff (pp) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
missing=""
for l in $lists; do
	f=$DIR/openb_pod_list_$l.csv
	if [ ! -r "$f" ]; then
		missing="$missing $l"
		continue
	fi
	"$HETLAB" frag "$DIR" --pods "$f" --out "$TMP/$l.db" -j "$JOBS" >"$TMP/$l.txt" 2>/dev/null
	# policy seeds 100% sd paper diff end% sd paper diff frag%
	awk -v l="$l" '$2 == 10 && NF == 11 {
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", l, $1, $3, $5, $6, $7, $9, $10 }' \
		"$TMP/$l.txt"
	awk -v l="$l" '$2 == 10 && NF == 11 { print l, $1, "100", $4, $6; print l, $1, "130", $8, $10 }' \
		"$TMP/$l.txt" >> "$TMP/sd"
done | tee "$TMP/rows"
awk -F'|' '{ for (c = 6; c <= 9; c += 3) { d = $c + 0; if (d < 0) d = -d; n++; s += d;
	if (d > m) m = d; if (d <= 0.5) k++ } }
	END { printf "\n%d cells: within ±0.5 pp %d, mean |diff| %.2f pp, max |diff| %.2f pp\n", n, k, s / n, m }' \
	"$TMP/rows"
# list policy point sd diff, one line per cell
sort -k4,4g "$TMP/sd" | awk '{ sd[NR] = $4 } END {
	printf "seed-to-seed sd of a cell: %.2f to %.2f pp, median %.2f pp; standard error of a 10-seed mean: %.2f to %.2f pp\n",
		sd[1], sd[NR], (NR % 2 ? sd[(NR + 1) / 2] : (sd[NR / 2] + sd[NR / 2 + 1]) / 2), sd[1] / sqrt(10), sd[NR] / sqrt(10) }'
awk '{ d = $5 + 0; if (d < 0) d = -d; se = $4 / sqrt(10)
	if (d > 0.5) printf "outside ±0.5 pp: %s %s at %s %%: %+.2f pp, sd %.2f pp: %.1f standard errors\n", $1, $2, $3, $5, $4, (se > 0 ? d / se : 0) }' "$TMP/sd"
[ -z "$missing" ] || echo "published lists not in $DIR:$missing"
