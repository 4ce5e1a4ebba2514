# Sourced by tests/scenario/run.sh (uses its HETLAB, TMP, ok, bad): the
# scale benchmark (bench/scale.c on bench/scale.json) run small. It once
# failed at once on the default scenario (the day-1 join's rack name
# collided with the grown racks), printed a wrong node count and left its
# temporary files behind on failure.
SCALE=$(dirname "$HETLAB")/bench/scale
if [ ! -x "$SCALE" ]; then
	bad "bench scale: $SCALE not built (make $SCALE)"
else
	out=$(TMPDIR=$TMP "$SCALE" "$HETLAB" --points 100 2>&1)
	rc=$?
	row=$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9.]+$/ && NF == 12 { print $2, $3 }')
	set -- $row
	if [ $rc -eq 0 ] && [ "${1:-0}" -ge 100 ] && [ "${1:-0}" -le 130 ] && [ "${2:-0}" -gt 5000 ]; then
		ok "bench scale: the scenario grown to ${1} nodes runs (${2} jobs)"
	else
		bad "bench scale: small run" "rc=$rc: $out"
	fi
	if ls /tmp/hetlab-scale-* >/dev/null 2>&1; then
		left_before=$(ls -d /tmp/hetlab-scale-* | wc -l)
	else
		left_before=0
	fi
	out=$("$SCALE" /bin/false --points 100 2>&1)
	rc=$?
	if ls /tmp/hetlab-scale-* >/dev/null 2>&1; then left=$(ls -d /tmp/hetlab-scale-* | wc -l); else left=0; fi
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q "failed" && [ "$left" -le "$left_before" ]; then
		ok "bench scale: a failed run is reported and leaves no temporary files"
	else
		bad "bench scale: failed run" "rc=$rc, temporary dirs $left_before -> $left: $out"
	fi
fi
