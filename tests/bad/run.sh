#!/bin/sh
# tests/bad/run.sh HETLAB — the bad-input catalogue (tests/bad/README.md):
# every case of tests/bad/cases.sh runs in a scratch copy of
# tests/bad/inputs/ and must exit with its status and print its message.
# A hang guard stops a case after 60 s (a failure, not a timing check).
# Prints one line per failing case and a closing count; exit status 1 when
# any case failed. BAD_VERBOSE=1 prints every case's status and first line.
set -u
case $1 in /*) HETLAB=$1 ;; *) HETLAB=$(pwd)/$1 ;; esac
export HETLAB
ROOT=$(pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
cp -R tests/bad/inputs/. "$W/"
cd "$W" || exit 1
pass=0
fail=0
failed=""

put() {
	printf '%s\n' "$2" > "$1"
}

scn() {
	printf '{ %s }\n' "$2" > "$1"
}

fifo_line() {
	rm -f "$1"
	mkfifo "$1"
	timeout 60 sh -c '{ printf "%s" "$2"; head -c "$3" /dev/zero | tr "\000" a; } > "$1"' sh "$@" 2>/dev/null &
}

bad() {
	name=$1 want_rc=$2 want=$3
	shift 3
	[ "$1" = hetlab ] && { shift; set -- "$HETLAB" "$@"; }
	out=$(timeout 60 "$@" 2>&1 < /dev/null)
	rc=$?
	[ -n "${BAD_VERBOSE:-}" ] && printf '%-34s %s | %s\n' "$name" "$rc" "$(printf '%s' "$out" | head -n 1)"
	if [ "$rc" -eq "$want_rc" ] && printf '%s\n' "$out" | grep -qF -- "$want"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL $name: exit $rc (expected $want_rc)"
		echo "     expected: $want"
		printf '%s\n' "$out" | head -n 5 | sed 's/^/     got:      /'
	fi
}

. "$ROOT/tests/bad/cases.sh"
wait
echo "bad inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
