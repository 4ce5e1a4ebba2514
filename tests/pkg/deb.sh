#!/bin/sh
# The Debian package, end to end: `dpkg-buildpackage -us -uc` on a copy of
# the tree, lintian without errors, then the .deb installed with apt into a
# fresh Debian 12 root (debootstrap --variant=minbase bookworm, kept as a
# tarball in $HETLAB_PKGTEST_CACHE so that later runs start from the same
# pristine root without downloading it again) where the installed hetlab
# runs a scenario, lists its jobs, finds its man pages, completion and docs,
# and is removed again.
#
# Needs root (chroot, apt). Installs dpkg-dev, debhelper, lintian and
# debootstrap when missing. Prints SKIP and exits 0 only when it is not root
# or cannot get those tools (no package mirror).
set -u
CACHE=${HETLAB_PKGTEST_CACHE:-/var/cache/hetlab-pkgtest}
MIRROR=${HETLAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SRC=$(pwd)
TMP=$(mktemp -d)
ROOT=$TMP/root
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/     /'; }
cleanup() {
	for m in proc dev/pts dev; do
		mountpoint -q "$ROOT/$m" 2>/dev/null && umount -l "$ROOT/$m"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
skip() { echo "SKIP package test: $1"; echo "pkg: 0 passed, 0 failed, 1 skipped"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root (chroot, apt-get)"
need=""
for p in dpkg-dev debhelper lintian debootstrap fakeroot; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
	echo "pkg: installing$need"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >"$TMP/apt.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >"$TMP/apt.log" 2>&1; } ||
		skip "cannot install$need: $(tail -1 "$TMP/apt.log")"
fi

# ---- build ---------------------------------------------------------------
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
B=$TMP/build/hetlab-$VERSION
mkdir -p "$B"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$SRC" ls-files -co --exclude-standard | tar -C "$SRC" -T - -cf - | tar -xf - -C "$B"
else
	tar -C "$SRC" --exclude=./build --exclude=./build-asan -cf - . | tar -xf - -C "$B"
fi
if (cd "$B" && dpkg-buildpackage -us -uc -J >"$TMP/build.log" 2>&1); then
	ok "dpkg-buildpackage -us -uc builds the package"
else
	bad "dpkg-buildpackage -us -uc" "$(tail -20 "$TMP/build.log")"
	echo "pkg: $pass passed, $fail failed"
	exit 1
fi
DEB=$(ls "$TMP"/build/hetlab_"$VERSION"_*.deb)
lintian --no-tag-display-limit "$TMP"/build/hetlab_"$VERSION"_*.changes >"$TMP/lintian" 2>&1
if grep -q '^E:' "$TMP/lintian"; then
	bad "lintian: no errors" "$(grep '^E:' "$TMP/lintian")"
else
	ok "lintian: no errors ($(grep -c '^W:' "$TMP/lintian") warnings)"
fi
dpkg-deb -c "$DEB" > "$TMP/contents"
for f in ./usr/bin/hetlab ./usr/share/man/man1/hetlab.1.gz ./usr/share/man/man1/hetlab-run.1.gz \
         ./usr/share/bash-completion/completions/hetlab ./usr/share/zsh/vendor-completions/_hetlab \
         ./usr/share/doc/hetlab/copyright ./usr/share/hetlab/scenarios/guian.json; do
	grep -q " $f\$" "$TMP/contents" || bad "the package holds $f"
done
ok "the package holds the binary, man pages, completions, docs and examples"

# ---- a fresh Debian 12 root ----------------------------------------------
TARBALL=$CACHE/bookworm-minbase.tar
if [ ! -s "$TARBALL" ]; then
	mkdir -p "$CACHE"
	echo "pkg: debootstrap --variant=minbase bookworm (once; cached in $TARBALL)"
	if ! debootstrap --variant=minbase bookworm "$TMP/boot" "$MIRROR" >"$TMP/deboot.log" 2>&1; then
		bad "debootstrap bookworm" "$(tail -5 "$TMP/deboot.log")"
		echo "pkg: $pass passed, $fail failed"
		exit 1
	fi
	tar -C "$TMP/boot" -cf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL"
	rm -rf "$TMP/boot"
fi
mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$TARBALL"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$ROOT/proc"
cp "$DEB" "$ROOT/tmp/hetlab.deb"
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
if in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/hetlab.deb' \
	>"$TMP/inst.log" 2>&1; then
	ok "apt installs the .deb and its dependencies into a fresh Debian 12 root"
else
	bad "installing the .deb" "$(tail -10 "$TMP/inst.log")"
	echo "pkg: $pass passed, $fail failed"
	exit 1
fi
if in_root sh -c 'cd /tmp && hetlab run -q --out run.db && hetlab report run.db' >"$TMP/run.log" 2>&1 &&
   grep -q 'makespan' "$TMP/run.log"; then
	ok "the installed hetlab runs the default scenario and reports it"
else
	bad "hetlab run in the clean root" "$(tail -10 "$TMP/run.log")"
fi
in_root sh -c 'cd /tmp && hetlab run -q /usr/share/hetlab/scenarios/hetero.json --out h.db' >"$TMP/run2.log" 2>&1 &&
	ok "the installed example scenario runs" || bad "example scenario" "$(tail -5 "$TMP/run2.log")"
n=$(in_root hetlab jobs /tmp/run.db -n | wc -l)
[ "$n" -gt 100 ] && ok "hetlab jobs lists the run's $n jobs" || bad "hetlab jobs in the clean root" "$n"
docs=$(in_root hetlab help | tail -1)
case "$docs" in
*"/usr/share/doc/hetlab"*) ok "hetlab help points at /usr/share/doc/hetlab" ;;
*) bad "installed help's docs line" "$docs" ;;
esac
c=$(in_root bash -c '. /usr/share/bash-completion/completions/hetlab; COMP_WORDS=(hetlab jo); COMP_CWORD=1; _hetlab; echo "${COMPREPLY[*]}"')
[ "$c" = jobs ] && ok "the installed bash completion completes" || bad "installed completion" "$c"
if in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq hetlab' >"$TMP/rm.log" 2>&1 &&
   [ ! -e "$ROOT/usr/bin/hetlab" ] && [ ! -e "$ROOT/usr/share/man/man1/hetlab.1.gz" ]; then
	ok "apt-get remove removes it"
else
	bad "removing the package" "$(tail -5 "$TMP/rm.log")"
fi

echo "pkg: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
