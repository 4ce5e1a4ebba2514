#!/bin/sh
# The doc-test (docs/doctest.md): runs the `doctest` blocks of README.md and
# docs/*.md with the given hetlab binary and checks their output.
# usage: tests/doc/run.sh HETLAB [PAGE.md ...] [--regenerate]
set -u
command -v python3 >/dev/null || { echo "the doc-test needs python3 (make deps installs it)"; exit 1; }
python3 "$(dirname "$0")/run.py" "$@" || exit 1
# With the whole set of pages (no page named), the HTML pages in a browser too.
[ $# -eq 1 ] && exec sh "$(dirname "$0")/pages.sh" "$1"
exit 0
