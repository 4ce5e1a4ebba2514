#!/bin/sh
# The source layout (docs/engine.md, "Source layout"), checked on the tree
# and on the objects of a build:
#
#   1. sizes: every .c and .h under the source folders and tests/unit has at
#      most $LAYOUT_MAX_LINES lines (1000);
#   2. includes: a folder includes only the folders below it (the table in
#      docs/engine.md), and no header includes itself through others;
#   3. calls: no file calls into a folder above its own, and no two files
#      call each other through any chain (a call circle), from `nm` of the
#      objects in BUILD;
#   4. purity: sim/ and policies/ include neither SQLite nor jansson, and
#      the objects of policies/ call no clock, environment, file or socket
#      function (policies are pure);
#   5. the live seam: in sim/, only the seam's files (sim/live.h,
#      sim/engine_live.c, sim/live_core.c) include sim/live.h or read the
#      live state (->live->), and no file tests a live flag of sim_cfg;
#   6. executors (live/exec/executor.h): every executor table is defined in
#      $EXEC_DIR, every symbol its objects export has an executor's prefix
#      (the table's, as lx_ of lx_executor) or the contract's (exec_), no
#      object elsewhere defines one with an executor's prefix, no file but
#      the registry refers to an executor's table, and no file but the
#      registry tests which executor it has (its name compared, the old
#      kind enum): what differs is asked of the table's flags and hooks.
#
# usage: tests/layout/run.sh BUILD_DIR
# POSIX sh, awk and nm (binutils) only. Exit status 1 when a rule is broken,
# each breach named with its file.
set -u
BUILD=${1:-build}
MAX=${LAYOUT_MAX_LINES:-1000}
TMP=$(mktemp -d)
trap '[ -n "${LAYOUT_KEEP:-}" ] && echo "layout: kept $TMP" || rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   layout: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL layout: $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/     /'; }

# The folders bottom up, and what each may include besides itself (the
# table of docs/engine.md). config/ may include live/live_cfg.h alone of
# live/: the live daemon's configuration types.
FOLDERS="sim policies traces analysis experiments config live cli"
allowed() {
	case $1 in
	sim) echo "" ;;
	policies) echo "sim" ;;
	traces) echo "sim" ;;
	analysis) echo "sim traces policies" ;;
	experiments) echo "sim policies traces analysis" ;;
	config) echo "sim policies traces analysis live/live_cfg.h" ;;
	live) echo "sim policies traces analysis config" ;;
	cli) echo "sim policies traces analysis experiments config live" ;;
	esac
}

# ---- 1. sizes ---------------------------------------------------------------
big=$(for d in $FOLDERS tests/unit; do ls "$d"/*.c "$d"/*.h "$d"/*/*.c "$d"/*/*.h 2>/dev/null; done | xargs wc -l |
	awk -v max="$MAX" '$2 != "total" && $1 > max { printf "%s: %d lines\n", $2, $1 }')
if [ -z "$big" ]; then ok "every source file has at most $MAX lines"; else bad "files over $MAX lines" "$big"; fi

# ---- 2. includes ------------------------------------------------------------
: > "$TMP/inc"
for d in $FOLDERS; do
	for f in "$d"/*.c "$d"/*.h "$d"/*/*.c "$d"/*/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
			while read -r h; do echo "$f $h"; done >> "$TMP/inc"
	done
done
wrong=""
for d in $FOLDERS; do
	ok_dirs=$(allowed "$d")
	w=$(awk -v d="$d" -v okd="$ok_dirs" '
		BEGIN { n = split(okd, a, " "); for (i = 1; i <= n; i++) fine[a[i]] = 1 }
		index($1, d "/") == 1 {
			split($2, p, "/")
			if (p[1] == d || !(p[1] in fine) && !($2 in fine)) {
				if (p[1] != d && index($2, "/")) print $1 " includes " $2
			}
		}' "$TMP/inc")
	[ -n "$w" ] && wrong="$wrong$w
"
done
wrong=$(printf '%s' "$wrong" | sed '/^$/d')
if [ -z "$wrong" ]; then ok "each folder includes only the folders below it"; else bad "includes against the layering" "$wrong"; fi

# circles(EDGES): the strongly connected groups of a directed graph given as
# "from to" lines, one group per line (names sorted, space-separated).
circles() {
	awk '
	function visit(v,   i, w) {
		idx[v] = low[v] = ++counter
		stack[++sp] = v; on[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
		}
		if (low[v] == idx[v]) {
			n = 0; s = ""
			do { w = stack[sp--]; on[w] = 0; grp[++n] = w } while (w != v)
			if (n > 1) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
					if (grp[j] < grp[i]) { t = grp[i]; grp[i] = grp[j]; grp[j] = t }
				for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") grp[i]
				print s
			}
		}
	}
	$1 != $2 && !(($1, $2) in seen) { seen[$1, $2] = 1; out[$1, ++nout[$1]] = $2; node[$1] = 1; node[$2] = 1 }
	END { for (v in node) if (!(v in idx)) visit(v) }' "$1" | sort
}

# Header circles: a header that includes itself through others.
awk '{ print $1, $2 }' "$TMP/inc" | grep '\.h [a-z]*/[a-z0-9_/]*\.h$' > "$TMP/hinc" || true
hc=$(circles "$TMP/hinc")
if [ -z "$hc" ]; then ok "no include circles among headers"; else bad "include circles" "$hc"; fi

# ---- 3. calls ---------------------------------------------------------------
if ! command -v nm > /dev/null; then
	bad "nm (binutils) is missing: the call graph cannot be read"
elif [ ! -d "$BUILD/sim" ]; then
	bad "no objects under $BUILD (build first: make)"
else
	: > "$TMP/defs"
	: > "$TMP/uses"
	for d in $FOLDERS; do
		for o in "$BUILD/$d"/*.o "$BUILD/$d"/*/*.o; do
			[ -f "$o" ] || continue
			f=${o#"$BUILD"/}
			f=${f%.o}
			[ "$f" = sim/embed ] && continue
			[ -f "$f.c" ] || continue   # left from a source since moved or removed
			nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^[TDBRC]$/ { print $3, f }' >> "$TMP/defs"
			nm -u "$o" | awk -v f="$f" 'NF { print f, $NF }' >> "$TMP/uses"
		done
	done
	# file -> file edges of calls (and data references) between objects.
	awk 'NR == FNR { def[$1] = $2; next } ($2 in def) && def[$2] != $1 { print $1, def[$2] }' \
		"$TMP/defs" "$TMP/uses" | sort -u > "$TMP/calls"
	n=$(wc -l < "$TMP/calls")
	up=""
	for d in $FOLDERS; do
		ok_dirs=$(allowed "$d")
		w=$(awk -v d="$d" -v okd="$ok_dirs" '
			BEGIN { n = split(okd, a, " "); for (i = 1; i <= n; i++) { split(a[i], p, "/"); fine[p[1]] = 1 } }
			{ split($1, x, "/"); split($2, y, "/") }
			x[1] == d && y[1] != d && !(y[1] in fine) { print $1 " calls into " $2 }' "$TMP/calls")
		[ -n "$w" ] && up="$up$w
"
	done
	up=$(printf '%s' "$up" | sed '/^$/d')
	if [ -z "$up" ]; then ok "no call goes up the layering ($n file-to-file call edges)"; else bad "calls against the layering" "$up"; fi
	cc=$(circles "$TMP/calls")
	if [ -z "$cc" ]; then ok "no call circles between files"; else bad "call circles (each line: files that call each other through a chain)" "$cc"; fi

	# ---- 4. purity ------------------------------------------------------
	impure=$(grep -l '#[[:space:]]*include[[:space:]]*<\(sqlite3\|jansson\)\.h>' sim/*.[ch] policies/*.[ch] 2>/dev/null)
	if [ -z "$impure" ]; then ok "sim/ and policies/ include neither SQLite nor jansson"; else bad "SQLite or jansson in sim/ or policies/" "$impure"; fi
	pc=$(awk '$1 ~ /^policies\// && $2 ~ /^(time|clock_gettime|gettimeofday|getenv|secure_getenv|fopen|open|openat|read|write|socket|connect|rand|random|srand|system|popen|fork|execv|execvp|sqlite3_open|sqlite3_open_v2)$/ { print $1 " calls " $2 }' "$TMP/uses")
	if [ -z "$pc" ]; then ok "policies/ call no clock, environment, file or socket function"; else bad "policies are not pure" "$pc"; fi
fi

# ---- 5. the live seam (docs/engine.md "Live mode: the seam") ---------------
SEAM="sim/live.h sim/engine_live.c sim/live_core.c"
leak=$(for f in sim/*.c sim/*.h; do
	case " $SEAM " in *" $f "*) continue ;; esac
	grep -Hn -e '#[[:space:]]*include[[:space:]]*"sim/live\.h"' -e '->live->' -e '\.live->' \
		-e 'cfg[.>-]*live\b' -e 'cfg[.>-]*live_' "$f"
done)
if [ -z "$leak" ]; then ok "live state only in the live seam of sim/ ($SEAM)"; else bad "live mode outside the seam of sim/" "$leak"; fi

# ---- 6. executors ------------------------------------------------------------
EXEC_DIR=${LAYOUT_EXEC_DIR:-live/exec}
REGISTRY=$EXEC_DIR/registry.c
# The tables ("const struct live_executor NAME = {") and their names.
grep -n '^[[:space:]]*const struct live_executor [a-z0-9_]* *=' $(for d in $FOLDERS; do echo "$d"/*.c "$d"/*/*.c; done) 2>/dev/null > "$TMP/xtab"
misplaced=$(awk -F: -v d="$EXEC_DIR/" 'index($1, d) != 1 { print $1 ":" $2 ": an executor table outside " d }' "$TMP/xtab")
xsyms=$(sed 's/.*const struct live_executor \([a-z0-9_]*\).*/\1/' "$TMP/xtab" | sort -u)
xpre=$(for x in $xsyms; do echo "${x%%_*}_"; done | sort -u)
xnames=$(for f in $(cut -d: -f1 "$TMP/xtab" | sort -u); do sed -n 's/^[[:space:]]*\.name = "\([^"]*\)",.*/\1/p' "$f"; done | sort -u)
if [ -z "$xsyms" ]; then
	bad "no executor table (const struct live_executor) found under $EXEC_DIR"
elif [ -n "$misplaced" ]; then
	bad "executor tables outside $EXEC_DIR" "$misplaced"
else
	ok "every executor table is in $EXEC_DIR ($(echo $xsyms | tr ' ' ','))"
fi
if [ -d "$BUILD/sim" ] && [ -s "$TMP/defs" ]; then
	# defs: "SYMBOL FILE". An executor's object exports only prefixed names;
	# no other object exports one.
	# (exec_ is the contract's inside, but sim/'s own too: exec_sim_ops.)
	pre_re=$(printf '%s\n' $xpre | sed 's/^/^/' | paste -sd'|' -)
	xp=$(awk -v d="$EXEC_DIR/" -v re="$pre_re" '
		{ s = tolower($1); inx = index($2, d) == 1 }
		inx && s !~ re && s !~ /^exec_/ { print $2 " exports " $1 " (no executor prefix)" }
		!inx && s ~ re { print $2 " defines " $1 " (an executor prefix outside " d ")" }' "$TMP/defs")
	if [ -z "$xp" ]; then ok "executor symbols: one prefix per executor ($(echo $xpre | tr ' ' ',') and exec_), all in $EXEC_DIR"
	else bad "executor symbols out of place" "$xp"; fi
	tabs_re=$(printf '%s\n' $xsyms | sed 's/.*/^&$/' | paste -sd'|' -)
	xr=$(awk -v reg="${REGISTRY%.c}" -v re="$tabs_re" '$1 != reg && $2 ~ re { print $1 " refers to " $2 " (only the registry may)" }' "$TMP/uses")
	if [ -z "$xr" ]; then ok "only the registry refers to an executor's table"; else bad "executor tables used outside the registry" "$xr"; fi
fi
# Kind tests: a line that compares an executor's name, or names the kind
# enum that the registry replaced. Comments are skipped.
names_re=$(printf '%s\n' $xnames | sed 's/.*/"&"/' | paste -sd'|' -)
kt=$(for d in $FOLDERS; do ls "$d"/*.c "$d"/*.h "$d"/*/*.c "$d"/*/*.h 2>/dev/null; done | grep -v "^$REGISTRY\$" |
	xargs awk -v names="$names_re" '
	{ line = $0; sub(/\/\*.*$/, "", line); sub(/\/\/.*$/, "", line) }
	line ~ /^[[:space:]]*\*/ { next }
	line ~ /LIVE_EXEC_[A-Z]|live_exec_kind/ { print FILENAME ":" FNR ": " $0; next }
	names != "" && line ~ names && tolower(line) ~ /exec/ && line ~ /strn?(case)?cmp|==|!=|\?/ { print FILENAME ":" FNR ": " $0 }')
if [ -z "$kt" ]; then ok "no executor-kind tests outside $REGISTRY (names: $(echo $xnames | tr ' ' ','))"
else bad "executor-kind tests outside the registry (ask the table's flags or hooks)" "$kt"; fi

echo
echo "layout: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
