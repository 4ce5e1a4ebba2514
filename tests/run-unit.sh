#!/bin/sh
# Runs each cmocka unit-test binary; prints a closing "N passed, N failed" line
# over the binaries and exits non-zero when any failed. Every binary runs,
# whatever failed before it. $UNIT_RUNNER, when set, is a command put before
# each binary (`make valgrind` sets it to valgrind and its options).
pass=0; fail=0; failed=""
for t in "$@"; do
	# shellcheck disable=SC2086
	if ${UNIT_RUNNER:-} "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $(basename "$t")"; fi
done
echo
[ -n "$failed" ] && echo "failed unit-test binaries:$failed"
echo "${UNIT_LABEL:-unit}: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
