#!/usr/bin/env python3
"""The doc-test: runs the commands shown in README.md and docs/*.md and
checks their output (the convention is in docs/doctest.md).

usage: tests/doc/run.py HETLAB [PAGE.md ...] [--regenerate]

Only fenced blocks whose info string is `doctest` (run, compare the output)
or `doctest-skip REASON` (shown, not run here) are touched; a page without
them is not a doc-test page and is left alone. Each page runs in its own
scratch folder (which has traces/, tests/, docs/ and bench/ of the checkout
linked in, a copy of scenarios/, and build/hetlab, the binary under test), its blocks in order, so a later block sees what an
earlier one wrote. `hetlab` on PATH is the binary given.

A figure in the prose is checked too: `<!-- figure NAME: COMMAND -->` (an
HTML comment alone on a line, not rendered) runs COMMAND where it stands
among the page's blocks, and every `<!--fig NAME-->TEXT<!--/fig-->` of the
page must read what it printed (one line). A figure used and not defined,
or defined and not used, fails.

--regenerate rewrites each block's expected output with what the commands
print now, keeping the wildcard lines and `{*}` parts that still match, and
each figure's TEXT, for a person to review with `git diff` (a deliberate
change of results).
Prints one ok/FAIL line per command and a closing "doc: N passed, N failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LINKS = ("traces", "tests", "docs", "bench", "Makefile")
COPIES = ("scenarios",)   # copied: sweep and plan files write beside themselves ("../sweep-out")
FENCE = re.compile(r"^(\s*)(```+)\s*(doctest(?:-skip)?)\b(.*)$")
EXIT = re.compile(r"#\s*exit status (\d+)\s*$")
TIMEOUT_S = 120


ANYFENCE = re.compile(r"^\s*(```+)(.*)$")
FIGDEF = re.compile(r"^\s*<!--\s*figure\s+([A-Za-z0-9_.-]+):\s*(.*?)\s*-->\s*$")
FIGUSE = re.compile(r"<!--fig ([A-Za-z0-9_.-]+)-->(.*?)<!--/fig-->", re.S)


def figures(lines, bl):
    """(line, name, command) of each figure definition outside the fenced
    blocks."""
    inside = set()
    i = 0
    while i < len(lines):
        f = ANYFENCE.match(lines[i])
        if not f:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != f.group(1):
            j += 1
        inside.update(range(i, j + 1))
        i = j + 1
    out = []
    for n, line in enumerate(lines):
        m = FIGDEF.match(line)
        if m and n not in inside:
            out.append((n, m.group(1), m.group(2)))
    return out


def blocks(lines):
    """(start, end, kind, arg) of each doctest fenced block; end is the
    closing fence's line. Other fenced blocks (and what they quote) are
    passed over."""
    out, i = [], 0
    while i < len(lines):
        f = ANYFENCE.match(lines[i])
        if not f:
            i += 1
            continue
        fence, j = f.group(1), i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        m = FENCE.match(lines[i])
        if m and m.group(2) == fence:
            out.append((i, j, m.group(3), m.group(4).strip()))
        i = j + 1
    return out


def parse(body):
    """Commands and their expected output: [(command, [expected lines])]."""
    cmds = []
    for line in body:
        if line.startswith("$ "):
            cmd = line[2:]
            cmds.append([cmd, []])
        elif cmds and cmds[-1][0].endswith("\\"):
            cmds[-1][0] = cmds[-1][0] + "\n" + line
        elif cmds:
            cmds[-1][1].append(line)
    return cmds


WILD = re.compile(r"\{\*\}|\{~[^}]*\}")


def line_re(pat):
    """`{*}` and `{~TEXT}` match any text; the groups capture it."""
    parts = WILD.split(pat)
    return re.compile("^" + "(.*?)".join(re.escape(p) for p in parts) + "$")


def refill(pat, actual):
    """The pattern with each `{~TEXT}` holding what the actual line has there."""
    m = line_re(pat).match(actual)
    marks = WILD.findall(pat)
    parts = WILD.split(pat)
    out = parts[0]
    for k, mark in enumerate(marks):
        out += ("{~" + m.group(k + 1) + "}" if mark.startswith("{~") else mark) + parts[k + 1]
    return out


def match(expected, actual, excerpt):
    """Whether the actual lines match the expected ones: `...` alone on a
    line matches any lines, `{*}` any text within a line; an excerpt's lines
    must appear in order, anything between them."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]
    while exp and exp[-1] == "":
        exp.pop()
    while act and act[-1] == "":
        act.pop()
    if excerpt:
        k = 0
        for e in exp:
            if e == "...":
                continue
            r = line_re(e)
            while k < len(act) and not r.match(act[k]):
                k += 1
            if k == len(act):
                return False
            k += 1
        return True

    def rec(i, j):
        if i == len(exp):
            return j == len(act)
        if exp[i] == "...":
            return any(rec(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and line_re(exp[i]).match(act[j]) is not None and rec(i + 1, j + 1)
    return rec(0, 0)


def regenerate(expected, actual):
    """The actual output, keeping an expected line where it still matches
    (its wildcards) and a `...` where the expected had one."""
    out, k = [], 0
    for n, e in enumerate(expected):
        if e.rstrip() == "...":
            out.append("...")
            # The lines it stands for: up to the next shown line that matches.
            nxt = next((x.rstrip() for x in expected[n + 1:] if x.rstrip() not in ("", "...")), None)
            if nxt is not None:
                r = line_re(nxt)
                k = next((m for m in range(k, len(actual)) if r.match(actual[m].rstrip())), k)
            continue
        if k < len(actual) and line_re(e.rstrip()).match(actual[k].rstrip()):
            out.append(refill(e.rstrip(), actual[k].rstrip()))
            k += 1
        elif k < len(actual):
            out.append(actual[k].rstrip())
            k += 1
    out.extend(a.rstrip() for a in actual[k:])
    # Blank lines that ended the shown output (space before the next
    # command) are the page's layout: kept.
    tail = 0
    while tail < len(expected) and expected[len(expected) - 1 - tail].strip() == "":
        tail += 1
    while out and out[-1] == "":
        out.pop()
    return out + [""] * tail


def scratch(hetlab):
    d = tempfile.mkdtemp(prefix="hetlab-doc-")
    # build/hetlab is the binary under test (build-asan/hetlab under make asan).
    os.mkdir(os.path.join(d, "build"))
    os.symlink(os.path.abspath(hetlab), os.path.join(d, "build", "hetlab"))
    for n in LINKS:
        if os.path.exists(os.path.join(ROOT, n)):
            os.symlink(os.path.join(ROOT, n), os.path.join(d, n))
    for n in COPIES:
        shutil.copytree(os.path.join(ROOT, n), os.path.join(d, n), symlinks=True)
    bindir = os.path.join(d, ".bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(hetlab), os.path.join(bindir, "hetlab"))
    return d, bindir


def run_page(page, hetlab, regen, counts):
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    bl = blocks(lines)
    figs = figures(lines, bl)
    if not bl and not figs:
        return
    rel = os.path.relpath(page, ROOT)
    d, bindir = scratch(hetlab)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               LC_ALL="C.UTF-8", TZ="UTC", HETLAB_DOCTEST="1")
    edits = []
    values = {}
    steps = sorted([(b[0], "block", b) for b in bl] + [(f[0], "figure", f) for f in figs])
    try:
        for (_, what, step) in steps:
            if what == "figure":
                n, name, cmd = step
                try:
                    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=d, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       timeout=TIMEOUT_S)
                    out, rc = p.stdout.decode("utf-8", "replace").strip(), p.returncode
                except subprocess.TimeoutExpired:
                    out, rc = f"(timed out after {TIMEOUT_S} s)", -1
                if rc != 0 or "\n" in out or name in values:
                    counts["fail"] += 1
                    why = "defined twice" if name in values else f"exit status {rc}, printed {out!r}"
                    print(f"FAIL {rel}:{n + 1}: figure {name}: {why}")
                    values.setdefault(name, None)
                else:
                    values[name] = out
                continue
            (start, end, kind, arg) = step
            if kind == "doctest-skip":
                if not arg:
                    counts["fail"] += 1
                    print(f"FAIL {rel}:{start + 1}: doctest-skip without a reason")
                else:
                    counts["skip"] += 1
                    print(f"skip {rel}:{start + 1}: {arg}")
                continue
            body = lines[start + 1:end]
            new_body = []
            for cmd, expected in parse(body):
                m = EXIT.search(cmd.split("\n")[-1])
                want_rc = int(m.group(1)) if m else 0
                excerpt = "# excerpt" in cmd.split("\n")[0]
                t0 = time.time()
                try:
                    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=d, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       timeout=TIMEOUT_S)
                    out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
                except subprocess.TimeoutExpired:
                    out, rc = f"(timed out after {TIMEOUT_S} s)", -1
                dt = time.time() - t0
                actual = out.split("\n")
                if actual and actual[-1] == "":
                    actual.pop()
                ok = rc == want_rc and (regen or match(expected, actual, excerpt))
                short = cmd.split("\n")[0][:70]
                if ok:
                    counts["pass"] += 1
                    print(f"ok   {rel}:{start + 1}: {short} ({dt:.1f} s)")
                else:
                    counts["fail"] += 1
                    print(f"FAIL {rel}:{start + 1}: {short}: exit status {rc} (expected {want_rc})")
                    exp = [e.rstrip() for e in expected]
                    import difflib
                    for dl in list(difflib.unified_diff(exp, [a.rstrip() for a in actual],
                                                        "shown", "printed", lineterm=""))[:40]:
                        print("     " + dl)
                new_body.append("$ " + cmd)
                if excerpt:
                    new_body.extend(expected)
                else:
                    new_body.extend(regenerate(expected, actual) if regen else expected)
            # Lines before the first command (none expected) are kept.
            lead = []
            for line in body:
                if line.startswith("$ "):
                    break
                lead.append(line)
            edits.append((start + 1, end, lead + new_body))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    # The figures in the prose against what their commands printed.
    text = "\n".join(lines)
    used = set()
    for m in FIGUSE.finditer(text):
        name, shown = m.group(1), m.group(2)
        used.add(name)
        line = text.count("\n", 0, m.start()) + 1
        if name not in values:
            counts["fail"] += 1
            print(f"FAIL {rel}:{line}: figure {name} is not defined (<!-- figure {name}: COMMAND -->)")
        elif values[name] is None:
            pass
        elif shown == values[name] or regen:
            counts["pass"] += 1
            print(f"ok   {rel}:{line}: figure {name} = {values[name]}")
        else:
            counts["fail"] += 1
            print(f"FAIL {rel}:{line}: figure {name}: the page says {shown!r}, its command printed {values[name]!r}")
    for (n, name, _) in figs:
        if name not in used:
            counts["fail"] += 1
            print(f"FAIL {rel}:{n + 1}: figure {name} is defined but not used")
    if regen:
        for (a, b, new) in reversed(edits):
            lines[a:b] = new
        text = "\n".join(lines)
        text = FIGUSE.sub(lambda m: m.group(0) if values.get(m.group(1)) is None else
                          f"<!--fig {m.group(1)}-->{values[m.group(1)]}<!--/fig-->", text)
        with open(page, "w", encoding="utf-8") as f:
            f.write(text)


def main(argv):
    regen = "--regenerate" in argv
    args = [a for a in argv[1:] if a != "--regenerate"]
    if not args:
        print(__doc__)
        return 2
    hetlab, pages = args[0], args[1:]
    if not pages:
        pages = [os.path.join(ROOT, "README.md")] + sorted(
            os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs"))
            if n.endswith(".md"))
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for page in pages:
        run_page(os.path.abspath(page), hetlab, regen, counts)
    print(f"\ndoc: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
