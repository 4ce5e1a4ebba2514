# testlib.sh — the checks the Slurm test scripts share, sourced after
# setting NAME (the script's label: "slurm soak", ...):
#
#   ok WHAT | bad WHAT [DETAIL] | check WHAT 1|0 [DETAIL] | check_eq WHAT GOT EXPECTED
#   until_ok CMD...    polls CMD every 0.1 s until it succeeds, for $T s (40)
#   summary            prints "NAME: N passed, N failed (S s)"; its status is 1 on a failure
#
# Counts in $pass and $fail; $t0 is the start (set it before).
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $NAME: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $NAME: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
check() { if [ "$2" = 1 ]; then ok "$1"; else bad "$1" "${3:-}"; fi; }
until_ok() {
	end=$(( $(date +%s) + ${T:-40} ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
summary() {
	echo "$NAME: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
	[ "$fail" -eq 0 ]
}
