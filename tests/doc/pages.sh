#!/bin/sh
# The HTML pages in a real browser: a run's report and a comparison are
# rendered by headless Chromium to PNG screenshots (kept in $HETLAB_PAGES
# when set, for a person to look at), which must be non-trivial images;
# the report's DOM must hold its summary, its figures beside its tables,
# the pixelated heat map and no network reference. Skipped (saying so)
# where Chromium is absent. usage: tests/doc/pages.sh HETLAB
set -u
HETLAB=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "skip the HTML pages in a browser: no chromium here (apt-get install chromium)"
	echo "pages: 0 passed, 0 failed"
	exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=${HETLAB_PAGES:-$TMP}
mkdir -p "$OUT"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
shot() { # html png height
	timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1300,"$3" --screenshot="$2" "file://$1" >/dev/null 2>&1
	size=$(wc -c < "$2" 2>/dev/null || echo 0)
	[ "$(head -c 4 "$2" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] && [ "$size" -gt 20000 ]
}
"$HETLAB" run --out "$TMP/r.db" -q
"$HETLAB" run --seeds 1-3 --out "$TMP/a" -q >/dev/null && "$HETLAB" run --policy conservative --seeds 1-3 --out "$TMP/b" -q >/dev/null
if "$HETLAB" report "$TMP/r.db" --format html --out "$TMP/report.html" 2>/dev/null; then
	if shot "$TMP/report.html" "$OUT/report.png" 6000; then ok "report.html renders ($OUT/report.png)"; else bad "report.html screenshot"; fi
	dom=$(timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --dump-dom "file://$TMP/report.html" 2>/dev/null)
	summary=$(printf '%s' "$dom" | grep -o '<h2>[^<]*</h2>' | head -1)
	nfig=$(printf '%s' "$dom" | grep -o '<figure id=' | wc -l)
	if [ "$summary" = "<h2>Summary</h2>" ] && [ "$nfig" -ge 9 ] &&
	   printf '%s' "$dom" | grep -q 'image-rendering:pixelated' &&
	   printf '%s' "$dom" | grep -q '<td>chat-api</td>' &&
	   ! printf '%s' "$dom" | grep -q 'http[s]*://'; then
		ok "report.html: summary first, $nfig figures beside their tables, crisp heat map, names, no network"
	else
		bad "report.html DOM: first heading '$summary', $nfig figures"
	fi
else
	bad "report --format html"
fi
if "$HETLAB" compare "$TMP/a" "$TMP/b" --format html --out "$TMP/compare.html" 2>/dev/null &&
   shot "$TMP/compare.html" "$OUT/compare.png" 1400 && grep -q '<circle' "$TMP/compare.html"; then
	ok "compare.html renders with its figure ($OUT/compare.png)"
else
	bad "compare --format html"
fi
echo "pages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
