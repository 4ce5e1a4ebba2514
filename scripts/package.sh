#!/bin/sh
# scripts/package.sh [OUTDIR] — `make package`: the Debian package of this
# tree. Copies the tree (the files git knows and the untracked ones it does
# not ignore; without git, everything but the build folders) to
# OUTDIR/src/hetlab-VERSION, runs `dpkg-buildpackage -us -uc -b -J` there
# (debian/rules: make all man completion, the unit tests unless
# DEB_BUILD_OPTIONS has nocheck, make install), and leaves the .deb (and
# the -dbgsym one) with its .changes and .buildinfo in OUTDIR (default
# build/pkg). The build's output
# is in OUTDIR/build.log; on failure its last lines are printed.
# scripts/deps.sh pkg installs what it needs (dpkg-dev, debhelper).
set -u
OUT=${1:-build/pkg}
[ -f debian/changelog ] || { echo "hetlab: package: run from the top of the tree (no debian/changelog)" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null 2>&1 ||
	{ echo "hetlab: package: dpkg-buildpackage not found (as root: apt-get install dpkg-dev debhelper)" >&2; exit 1; }
VERSION=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$VERSION" ] || { echo "hetlab: package: no version on the first line of debian/changelog" >&2; exit 1; }
SRC=$OUT/src
B=$SRC/hetlab-$VERSION
rm -rf "$SRC"
mkdir -p "$B" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -co --exclude-standard | tar -T - -cf - | tar -xf - -C "$B"
else
	tar --exclude=./build --exclude=./build-asan --exclude=./build-fuzz -cf - . | tar -xf - -C "$B"
fi || { echo "hetlab: package: cannot copy the tree to $B" >&2; exit 1; }
echo "hetlab: package: dpkg-buildpackage -us -uc -b in $B (log: $OUT/build.log)"
if ! (cd "$B" && dpkg-buildpackage -us -uc -b -J) >"$OUT/build.log" 2>&1; then
	tail -20 "$OUT/build.log" >&2
	echo "hetlab: package: dpkg-buildpackage failed (the whole log: $OUT/build.log)" >&2
	exit 1
fi
set -- "$SRC"/hetlab_"$VERSION"_*.deb
[ -f "$1" ] || { echo "hetlab: package: dpkg-buildpackage made no hetlab_${VERSION}_*.deb" >&2; exit 1; }
# hetlab and hetlab-dbgsym, which the .changes lists (lintian reads both)
rm -f "$OUT"/hetlab*_"$VERSION"_*.deb "$OUT"/hetlab_"$VERSION"_*.changes "$OUT"/hetlab_"$VERSION"_*.buildinfo
mv "$SRC"/hetlab*_"$VERSION"_*.deb "$SRC"/hetlab_"$VERSION"_*.changes "$SRC"/hetlab_"$VERSION"_*.buildinfo "$OUT"/ 2>/dev/null
rm -rf "$SRC"
for d in "$OUT"/hetlab_"$VERSION"_*.deb; do
	echo "hetlab: package: $d"
done
