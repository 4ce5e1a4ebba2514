#!/bin/sh
# Installs the Debian packages hetlab needs to build, test and plot, when they
# are missing. Says what it installs. Not root: prints the apt-get line and fails.
# When another apt-get, apt or dpkg holds the package locks (unattended-upgrades,
# a second make), it says so and waits for them, up to HETLAB_APT_LOCK_WAIT
# seconds (default 600): apt-get install with -o DPkg::Lock::Timeout, apt-get
# update (whose lists lock that option does not cover) by trying again.
# `deps.sh fuzz` adds what `make fuzz` needs (clang and its libFuzzer runtime),
# `deps.sh pkg` what `make package` needs (dpkg-dev, debhelper).
set -e
PKGS="build-essential pkg-config libgsl-dev libsqlite3-dev libjansson-dev libcmocka-dev zlib1g-dev libssl-dev libhwloc-dev libmicrohttpd-dev gnuplot-nox sqlite3 python3 openssl"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-14-dev"
[ "${1:-}" = pkg ] && PKGS="$PKGS dpkg-dev debhelper"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "hetlab: missing Debian packages:$missing" >&2
	echo "hetlab: run as root:  apt-get install -y$missing" >&2
	exit 1
fi
echo "hetlab: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
WAIT=${HETLAB_APT_LOCK_WAIT:-600}
case $WAIT in '' | *[!0-9]*) echo "hetlab: HETLAB_APT_LOCK_WAIT: expected seconds, got '$WAIT'" >&2; exit 2 ;; esac
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT

# apt_get ARG...: apt-get ARG..., waiting for a lock another process holds.
# The first try does not wait, so that the wait is said when it starts; the
# next ones wait in apt-get (DPkg::Lock::Timeout: the dpkg lock) for what
# is left of HETLAB_APT_LOCK_WAIT, and again after 2 s while the package
# lists' lock is held (apt-get update fails at once on that one).
apt_get() {
	start=$(date +%s)
	timeout=0
	said=""
	while :; do
		if apt-get -o DPkg::Lock::Timeout="$timeout" "$@" 2>"$ERR"; then
			cat "$ERR" >&2
			return 0
		fi
		if ! grep -q -e 'Could not get lock' -e 'Unable to lock' -e 'Unable to acquire the dpkg frontend lock' "$ERR"; then
			cat "$ERR" >&2
			return 1
		fi
		left=$((start + WAIT - $(date +%s)))
		if [ "$left" -le 0 ]; then
			cat "$ERR" >&2
			echo "hetlab: gave up waiting for the package lock after $WAIT s (HETLAB_APT_LOCK_WAIT=SECONDS waits longer)" >&2
			return 1
		fi
		if [ -z "$said" ]; then
			held=$(grep -o 'held by process [0-9]* ([^)]*)' "$ERR" | head -n 1)
			echo "hetlab: another apt-get or dpkg holds the package lock${held:+ ($held)}: waiting for it, up to $WAIT s (HETLAB_APT_LOCK_WAIT)" >&2
			said=1
		fi
		[ "$timeout" -gt 0 ] && sleep 2
		timeout=$left
	done
}

apt_get update -qq || exit 1
# shellcheck disable=SC2086
apt_get install -y -qq --no-install-recommends $missing || exit 1
echo "hetlab: installed$missing"
