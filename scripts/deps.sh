#!/bin/sh
# Installs the Debian packages hetlab needs to build, test and plot, when they
# are missing. Says what it installs. Not root: prints the apt-get line and fails.
# `deps.sh fuzz` adds what `make fuzz` needs (clang and its libFuzzer runtime).
set -e
PKGS="build-essential pkg-config libgsl-dev libsqlite3-dev libjansson-dev libcmocka-dev zlib1g-dev libssl-dev libhwloc-dev libmicrohttpd-dev gnuplot-nox sqlite3 python3 openssl"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-14-dev"
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
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
