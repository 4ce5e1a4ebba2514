#!/bin/sh
# The calibration table of docs/validation.md: on every SWF log of the
# trace directory, `hetlab trace fit` (the joint model, or the options
# given after --) then `hetlab trace synth --seed 1 --compare`, and the KS
# D of durations, inter-arrivals and sizes (all classes) and the busy cores
# model / trace. Prints a Markdown table.
# usage: scripts/fit-table.sh [HETLAB] [TRACES] [-- FIT_OPTIONS...]
set -eu
HETLAB=${1:-build/hetlab}
TRACES=${2:-${HETLAB_TRACES:-../shared/traces}}
[ $# -ge 2 ] && shift 2 || shift $#
[ "${1:-}" = -- ] && shift
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| log | jobs | durations D | inter-arrivals D | sizes D | busy cores model / trace |"
echo "| --- | --- | --- | --- | --- | --- |"
for f in $(find "$TRACES" -name '*.swf' -o -name '*.swf.gz' | sort); do
	name=$(basename "$f" | sed 's/\.gz$//; s/\.swf$//')
	"$HETLAB" trace fit "$f" --out "$TMP/m.json" "$@" >/dev/null
	"$HETLAB" trace synth "$TMP/m.json" --seed 1 --compare "$f" >"$TMP/c.txt"
	awk -v n="$name" '
		$1 == "all" && $2 == "durations" { jobs = $4; dd = $5 }
		$1 == "inter-arrivals" { di = $4 }
		$1 == "sizes" && NF == 5 { ds = $4 }
		/^  busy cores/ { bm = $(NF - 1); bt = $NF }
		END { printf "| %s | %s | %.4f | %.4f | %.4f | %.1f / %.1f (%+.1f %%) |\n",
		      n, jobs, dd, di, ds, bm, bt, 100 * (bm - bt) / bt }' "$TMP/c.txt"
done
