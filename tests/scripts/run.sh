#!/bin/sh
# tests/scripts/run.sh — the build's own scripts, with no root side
# effects: scripts/deps.sh against a fake apt-get (with dpkg-query and id)
# on PATH that holds the package locks for a few calls; scripts/package.sh
# (`make package`) against a fake dpkg-buildpackage; the Debian package's
# description against the trace formats hetlab reads (traces/anytrace.c).
# Run from the top of the tree.
set -u
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/     /'; }

FAKE=$TMP/bin
mkdir -p "$FAKE"
# Nothing is installed, and we are root (for deps.sh only).
printf '#!/bin/sh\nexit 1\n' > "$FAKE/dpkg-query"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' > "$FAKE/id"
printf '#!/bin/sh\nexit 0\n' > "$FAKE/sleep"
# apt-get logs its arguments; while $TMP/locks-VERB counts down it fails as
# apt-get 2.6 does on a held lock; $TMP/fail-VERB makes it fail otherwise.
cat > "$FAKE/apt-get" <<EOF
#!/bin/sh
echo "\$*" >> "$TMP/apt.log"
for a; do case \$a in update | install) verb=\$a ;; esac; done
n=\$(cat "$TMP/locks-\$verb" 2>/dev/null || echo 0)
if [ "\$n" -gt 0 ]; then
	echo \$((n - 1)) > "$TMP/locks-\$verb"
	if [ "\$verb" = update ]; then
		echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
		echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
	else
		echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4243 (unattended-upgr)" >&2
		echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
	fi
	exit 100
fi
[ -e "$TMP/fail-\$verb" ] && { echo "E: Unable to locate package nosuch" >&2; exit 100; }
exit 0
EOF
chmod +x "$FAKE"/*
deps() { rm -f "$TMP/apt.log"; PATH="$FAKE:$PATH" sh "$ROOT/scripts/deps.sh" >"$TMP/out" 2>"$TMP/err"; echo $?; }

# ---- scripts/deps.sh -------------------------------------------------------
got=$(deps)
if [ "$got" = 0 ] && grep -q '^-o DPkg::Lock::Timeout=[0-9]* update -qq$' "$TMP/apt.log" &&
   grep -q '^-o DPkg::Lock::Timeout=[0-9]* install -y -qq --no-install-recommends .*libgsl-dev' "$TMP/apt.log" &&
   [ "$(wc -l < "$TMP/apt.log")" = 2 ] && ! grep -q waiting "$TMP/err"; then
	ok "deps.sh: no lock held: apt-get update and install once each, with -o DPkg::Lock::Timeout"
else
	bad "deps.sh without a lock" "exit $got; $(cat "$TMP/apt.log" "$TMP/err")"
fi
echo 3 > "$TMP/locks-update"
echo 1 > "$TMP/locks-install"
got=$(deps)
n_upd=$(grep -c ' update ' "$TMP/apt.log")
n_ins=$(grep -c ' install ' "$TMP/apt.log")
said=$(grep -c '^hetlab: another apt-get or dpkg holds the package lock (held by process 424[23] ([a-z-]*)): waiting for it, up to 600 s' "$TMP/err")
# after the first try, apt-get itself waits: a timeout above 0
waits=$(grep -c '^-o DPkg::Lock::Timeout=[1-9][0-9]* install' "$TMP/apt.log")
if [ "$got" = 0 ] && [ "$n_upd" = 4 ] && [ "$n_ins" = 2 ] && [ "$said" = 2 ] && [ "$waits" = 1 ]; then
	ok "deps.sh: a held lock is said once and waited for (update tried again, install waits in apt-get)"
else
	bad "deps.sh waiting for the lock" "exit $got, $n_upd updates, $n_ins installs, said $said, waits $waits; $(cat "$TMP/apt.log" "$TMP/err")"
fi
echo 1000 > "$TMP/locks-install"
got=$(HETLAB_APT_LOCK_WAIT=0 deps)
if [ "$got" = 1 ] && grep -q '^hetlab: gave up waiting for the package lock after 0 s' "$TMP/err" &&
   grep -q 'Unable to acquire the dpkg frontend lock' "$TMP/err"; then
	ok "deps.sh: HETLAB_APT_LOCK_WAIT=0 gives up at once, saying so and showing apt-get's error"
else
	bad "deps.sh giving up" "exit $got; $(cat "$TMP/err")"
fi
rm -f "$TMP/locks-install"
touch "$TMP/fail-install"
got=$(deps)
if [ "$got" = 1 ] && [ "$(grep -c ' install ' "$TMP/apt.log")" = 1 ] && grep -q 'Unable to locate package' "$TMP/err" &&
   ! grep -q waiting "$TMP/err"; then
	ok "deps.sh: another apt-get failure fails at once, not waited for"
else
	bad "deps.sh other failure" "exit $got; $(cat "$TMP/apt.log" "$TMP/err")"
fi
rm -f "$TMP/fail-install"
got=$(HETLAB_APT_LOCK_WAIT=soon deps)
[ "$got" = 2 ] && grep -q "HETLAB_APT_LOCK_WAIT: expected seconds, got 'soon'" "$TMP/err" &&
	ok "deps.sh: a bad HETLAB_APT_LOCK_WAIT is a usage error" || bad "deps.sh bad wait" "exit $got; $(cat "$TMP/err")"

# ---- scripts/package.sh (make package) --------------------------------------
# The fake checks it runs in a copy of the tree without the build folder and
# leaves what dpkg-buildpackage leaves in the parent folder.
cat > "$FAKE/dpkg-buildpackage" <<EOF
#!/bin/sh
echo "\$*" > "$TMP/dpkg-args"
pwd > "$TMP/dpkg-pwd"
[ -f debian/control ] && [ -f Makefile ] && [ -f cli/main.c ] || { echo "not the tree" >&2; exit 2; }
[ -e build ] && { echo "the build folder was copied" >&2; exit 2; }
[ -e "$TMP/fail-dpkg" ] && { echo "dpkg-checkbuilddeps: error: Unmet build dependencies: libgsl-dev" >&2; exit 3; }
v=\$(basename "\$(pwd)")
v=\${v#hetlab-}
touch ../hetlab_\${v}_amd64.deb ../hetlab-dbgsym_\${v}_amd64.deb ../hetlab_\${v}_amd64.changes ../hetlab_\${v}_amd64.buildinfo
EOF
chmod +x "$FAKE/dpkg-buildpackage"
V=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
PATH="$FAKE:$PATH" sh scripts/package.sh "$TMP/pkg" >"$TMP/out" 2>&1
got=$?
if [ "$got" = 0 ] && [ -f "$TMP/pkg/hetlab_${V}_amd64.deb" ] && [ -f "$TMP/pkg/hetlab_${V}_amd64.changes" ] &&
   [ -f "$TMP/pkg/hetlab-dbgsym_${V}_amd64.deb" ] &&
   [ "$(cat "$TMP/dpkg-args")" = "-us -uc -b -J" ] && [ "$(basename "$(cat "$TMP/dpkg-pwd")")" = "hetlab-$V" ] &&
   [ ! -e "$TMP/pkg/src" ] && grep -q "^hetlab: package: $TMP/pkg/hetlab_${V}_amd64.deb\$" "$TMP/out"; then
	ok "package.sh: dpkg-buildpackage -us -uc -b -J in a copy of the tree (hetlab-$V), the .debs left in OUTDIR"
else
	bad "package.sh" "exit $got; $(cat "$TMP/out" "$TMP/dpkg-args" 2>&1; ls "$TMP/pkg")"
fi
touch "$TMP/fail-dpkg"
PATH="$FAKE:$PATH" sh scripts/package.sh "$TMP/pkg2" >"$TMP/out" 2>&1
got=$?
[ "$got" = 1 ] && grep -q 'Unmet build dependencies' "$TMP/out" && grep -q 'dpkg-buildpackage failed' "$TMP/out" &&
	ok "package.sh: a failed build exits 1 with the end of its log" || bad "package.sh failing" "exit $got; $(cat "$TMP/out")"
mk=$(${MAKE:-make} -s -n package BUILD=bx 2>&1)
case "$mk" in
*"sh scripts/deps.sh pkg"*"sh scripts/package.sh bx/pkg"*) ok "make package: deps.sh pkg, then package.sh into \$(BUILD)/pkg" ;;
*) bad "make package" "$mk" ;;
esac

# ---- the package description names every trace format hetlab reads -------
desc=$(sed -n '/^Description:/,/^$/p' debian/control)
names=$(sed -n 's/.*case TRACE_[A-Z]*: return "\([^"]*\)";.*/\1/p; s/.*default: return "\([^"]*\)";.*/\1/p' traces/anytrace.c)
missing=""
n=0
for w in $names; do
	n=$((n + 1))
	printf '%s\n' "$desc" | grep -qi -- "$w" || missing="$missing $w"
done
[ "$n" -ge 6 ] && [ -z "$missing" ] &&
	ok "debian/control's description names every trace format of traces/anytrace.c ($(echo "$names" | tr '\n' ' '))" ||
	bad "debian/control description" "missing:$missing (of $n words: $names)"

# README's list of the packages deps.sh installs is deps.sh's list.
want=$(sed -n 's/^PKGS="\(.*\)"$/\1/p' scripts/deps.sh | tr ' ' '\n' | sort | tr '\n' ' ')
said=$(awk '/^Both call `scripts\/deps.sh`/ { on = 1 } on { print } on && /\)/ { exit }' README.md |
	tr '\n' ' ' | sed 's/.*(`\([^`]*\)`).*/\1/' | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$want" = "$said" ] && ok "README lists the packages scripts/deps.sh installs" ||
	bad "README's package list" "deps.sh: $want
README:  $said"

# The doc-test's checked figures (tests/doc/run.py, docs/doctest.md): a
# figure in the prose that its command no longer prints fails, naming both;
# --regenerate writes what it prints; a figure used and not defined fails.
mkdir -p "$TMP/doc"
printf '# A page\n\n<!-- figure answer: echo 6 x 7 | awk "{ print \\$1 * \\$3 }" -->\nThe answer is <!--fig answer-->41<!--/fig--> s.\n' > "$TMP/doc/p.md"
out=$(python3 tests/doc/run.py /bin/true "$TMP/doc/p.md" 2>&1)
case $out in
*"figure answer: the page says '41', its command printed '42'"*"1 failed"*) ok "doc-test: a drifted prose figure fails" ;;
*) bad "doc-test: a drifted prose figure" "$out" ;;
esac
python3 tests/doc/run.py /bin/true "$TMP/doc/p.md" --regenerate > /dev/null 2>&1
out=$(python3 tests/doc/run.py /bin/true "$TMP/doc/p.md" 2>&1)
if grep -q 'The answer is <!--fig answer-->42<!--/fig--> s.' "$TMP/doc/p.md" && [ -z "${out##*1 passed, 0 failed*}" ]; then
	ok "doc-test: --regenerate writes the figure, which then passes"
else
	bad "doc-test: figure regenerate" "$(cat "$TMP/doc/p.md"; echo "$out")"
fi
printf 'Used, <!--fig nope-->1<!--/fig-->, not defined.\n<!-- figure unused: echo 1 -->\n' > "$TMP/doc/q.md"
out=$(python3 tests/doc/run.py /bin/true "$TMP/doc/q.md" 2>&1)
case $out in
*"figure nope is not defined"*"figure unused is defined but not used"*"2 failed"*) ok "doc-test: an undefined or unused figure fails" ;;
*) bad "doc-test: undefined and unused figures" "$out" ;;
esac

echo "scripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
