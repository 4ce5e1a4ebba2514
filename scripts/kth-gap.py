#!/usr/bin/env python3
"""Why hetlab's EASY replay of the KTH SP2 log waits 0.45x what the log did.

The figures of docs/validation.md, "KTH SP2: the recorded wait and EASY's".
Reads traces/data/swf-kth-sp2-1996/ (the repository's copy), measures from
the recorded start and end times what the site's rules and capacity were,
and replays the log under each candidate cause:

- with hetlab (build/hetlab) where a scenario can say it: the estimates not
  enforced, fewer nodes, nodes missing for the first weeks;
- with a replica of hetlab's EASY (below) where it cannot: the site's
  time-of-day run limits and synchronisation points. The replica gives
  hetlab's job table mean to the millisecond on every scenario both can
  run (the script prints both), so its other figures are EASY's too.

usage: scripts/kth-gap.py [HETLAB]      (python3 of Debian, stdlib only; about 10 s)
"""
import bisect
import datetime
import gzip
import heapq
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from zoneinfo import ZoneInfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG = os.path.join(ROOT, "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz")
U0 = 843480031                      # the header's UnixStartTime
UTC = datetime.timezone.utc
N = 100                             # MaxProcs, MaxNodes
HOUR = 3600
# The PWA's notes on the log (l_kth_sp2): run-time limits by the time a job
# starts (weekdays 07-16: 4 h; weekday nights: 15 h; weekends: 60 h) and,
# before 6 June 1997, no job running across 07:00 or 16:00 on a weekday.
LIMIT = {"day": 4 * HOUR, "night": 15 * HOUR, "weekend": 60 * HOUR}
SYNC_UNTIL = int(datetime.datetime(1997, 6, 6, tzinfo=UTC).timestamp()) - U0


def load():
    """Jobs with a processor count and a run time, in submit order:
    [submit, run, procs, estimate, wait]; the header's text."""
    jobs, head = [], []
    with gzip.open(LOG, "rt") as f:
        for line in f:
            if line.startswith(";"):
                head.append(line.rstrip())
                continue
            v = line.split()
            if len(v) < 18:
                continue
            sub, wait, run, alloc, req, est = (int(v[i]) for i in (1, 2, 3, 4, 7, 8))
            procs = alloc if alloc > 0 else req
            if procs > 0 and run >= 0:
                jobs.append([sub, run, procs, est, wait])
    jobs.sort(key=lambda j: j[0])
    return jobs, head


# ---- the site's calendar ------------------------------------------------------

def local(t, zone):
    return datetime.datetime.fromtimestamp(U0 + t, zone)


def kind(t, zone=UTC):
    d = local(t, zone)
    wd, h = d.weekday(), d.hour
    if wd >= 5 or (wd == 4 and h >= 16) or (wd == 0 and h < 7):
        return "weekend"
    return "day" if 7 <= h < 16 else "night"


def sync_points(t0, t1, zone=UTC):
    """Weekday 07:00 and 16:00 in [t0, t1], as log times."""
    d = local(t0, zone).replace(hour=0, minute=0, second=0)
    out = []
    while int(d.timestamp()) - U0 <= t1:
        for h in (7, 16):
            x = d.replace(hour=h)
            if x.weekday() < 5:
                out.append(int(x.timestamp()) - U0)
        d = (d + datetime.timedelta(days=1, hours=3)).replace(hour=0)
    return out


class Rules:
    """May a job of estimate e start at t? (limits, and sync points before SYNC_UNTIL)."""

    def __init__(self, jobs, sync=True, zone=UTC):
        self.zone, self.sync = zone, sync
        self.points = sync_points(jobs[0][0] - 86400, jobs[-1][0] + 400 * 86400, zone)

    def ok(self, t, e):
        if e > LIMIT[kind(t, self.zone)]:
            return False
        if self.sync and t < SYNC_UNTIL:
            k = bisect.bisect_right(self.points, t)
            return t + e <= self.points[k]
        return True

    def crosses(self, a, b):
        k = bisect.bisect_right(self.points, a)
        return self.points[k] < b


# ---- EASY, as hetlab's policies/easy.c does it on one-core nodes -------------

def easy(jobs, nodes=N, enforce=True, rules=None, down=(), waits=False):
    """Mean wait (s) of EASY backfilling: jobs start in submit order while
    they fit; the first that does not (the head) gets the shadow time, the
    first estimated end at which enough processors are free; a later job
    (of the next 500) starts if it fits and ends by the shadow time or
    takes only what the head leaves over then. Estimated end = start +
    estimate; with enforce a job ends at min(run, estimate). rules: a Rules
    (a job it refuses is not in the queue at t; passes at every sync point).
    down: (from, to, processors) out of service. waits: the list of each
    job's wait instead of the mean."""
    n = len(jobs)
    start = [None] * n
    ev = [(j[0], 1, i) for i, j in enumerate(jobs)]
    for a, b, p in down:
        ev += [(a, 3, -p), (b, 3, p)]
    if rules:
        ev += [(t, 2, 0) for t in rules.points]
    heapq.heapify(ev)
    free, running, pend = nodes, {}, []
    while ev:
        t = ev[0][0]
        while ev and ev[0][0] == t:
            _, k, i = heapq.heappop(ev)
            if k == 0:
                free += jobs[i][2]
                del running[i]
            elif k == 1:
                pend.append(i)
            elif k == 3:
                free += i
        q = [i for i in pend if rules is None or rules.ok(t, jobs[i][3])]
        started = set()

        def go(i):
            nonlocal free
            j = jobs[i]
            d = min(j[1], j[3]) if enforce and j[3] > 0 else j[1]
            start[i] = t
            free -= j[2]
            running[i] = t + j[3]
            heapq.heappush(ev, (t + d, 0, i))
            started.add(i)

        head = None
        for i in q:
            if jobs[i][2] <= free:
                go(i)
            else:
                head = i
                break
        if head is not None and free > 0:
            need = jobs[head][2]
            ids = sorted(running, key=running.get)
            c, shadow, k = free, float("inf"), 0   # inf: never (hetlab's SIMTIME_INF)
            while k < len(ids):
                e = running[ids[k]]
                while k < len(ids) and running[ids[k]] == e:
                    c += jobs[ids[k]][2]
                    k += 1
                if c >= need:
                    shadow = max(e, t + 1)
                    break
            spare = c - need
            tested = 0
            for i in q[q.index(head) + 1:]:
                if tested == 500 or free == 0:
                    break
                tested += 1
                j = jobs[i]
                if j[2] > free:
                    continue
                if j[3] > 0 and t + j[3] <= shadow:
                    go(i)
                elif j[2] <= min(free, spare):
                    go(i)
                    spare -= j[2]
        if started:
            pend = [i for i in pend if i not in started]
    w = [start[i] - jobs[i][0] for i in range(n)]
    return w if waits else sum(w) / n


# ---- what the log says --------------------------------------------------------

def busy_profile(jobs):
    """Breakpoints T and the processors busy on [T[k], T[k+1]), from the
    recorded start (submit + wait) and end (start + run)."""
    d = {}
    for sub, run, p, _, wait in jobs:
        d[sub + wait] = d.get(sub + wait, 0) + p
        d[sub + wait + run] = d.get(sub + wait + run, 0) - p
    T = sorted(d)
    B, b = [], 0
    for t in T:
        b += d[t]
        B.append(b)
    return T, B


def stalled(jobs, rules):
    """Seconds during which the first waiting job the rules allow fitted in
    the recorded free processors (100 - busy) and did not start: EASY with
    those rules would have started it. Also the part in stretches of >= 1 h."""
    ev = []
    for i, (sub, run, p, e, wait) in enumerate(jobs):
        ev += [(sub, 1, i), (sub + wait, 2, i), (sub + wait + run, 0, i)]
    ev += [(t, 3, -1) for t in rules.points]
    ev.sort()
    busy, waiting, gone = 0, [], set()
    total = long_s = 0
    since = None
    k = 0
    while k < len(ev):
        t = ev[k][0]
        startedany = False
        while k < len(ev) and ev[k][0] == t:
            _, what, i = ev[k]
            if what == 0:
                busy -= jobs[i][2]
            elif what == 1:
                waiting.append(i)
            elif what == 2:
                busy += jobs[i][2]
                gone.add(i)
                startedany = True
            k += 1
        if startedany:
            waiting = [i for i in waiting if i not in gone]
        fits = False
        for i in waiting:
            if rules.ok(t, jobs[i][3]):
                fits = jobs[i][2] <= N - busy
                break
        if fits and since is None:
            since = t
        elif not fits and since is not None:
            total += t - since
            long_s += t - since if t - since >= HOUR else 0
            since = None
    return total, long_s


# ---- hetlab runs --------------------------------------------------------------

class Hetlab:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.n = exe, tmp, 0

    def mean(self, trace, nodes=N, enforce=True, events=()):
        self.n += 1
        scn = {
            "name": "kth-gap", "seed": 1, "policy": "easy", "sample_interval_s": 0,
            "node_types": [{"name": "sp2-node", "cpu": "generic-core", "cores": 1,
                            "mem_gib": 0.125}],
            "racks": [{"name": "r", "power_kw": 15,
                       "nodes": [{"type": "sp2-node", "count": nodes}]}],
            "workload": {"trace": trace, "enforce_walltime": enforce},
        }
        if events:
            scn["events"] = list(events)
        path = os.path.join(self.tmp, "s%d.json" % self.n)
        db = os.path.join(self.tmp, "r%d.db" % self.n)
        with open(path, "w") as f:
            json.dump(scn, f)
        subprocess.run([self.exe, "run", path, "--out", db, "-q"], check=True)
        con = sqlite3.connect(db)
        (m,) = con.execute("SELECT avg(wait_s) FROM job").fetchone()
        con.close()
        return m


def write_swf(path, edit):
    """The log with each job line's fields passed through edit(fields)."""
    with gzip.open(LOG, "rt") as f, open(path, "w") as out:
        for line in f:
            if line.startswith(";"):
                out.write(line)
                continue
            v = line.split()
            edit(v)
            out.write(" ".join(v) + "\n")


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/hetlab")
    jobs, head = load()
    n = len(jobs)
    rec = sum(j[4] for j in jobs) / n
    print("KTH SP2 log: %d jobs (%s)" % (n, os.path.relpath(LOG, ROOT)))
    for h in head:
        if "EASY" in h:
            print("  header: %s" % h.lstrip("; "))
    print("recorded mean wait %.0f s" % rec)
    classes = (("estimate <= 4 h", 0, 4 * HOUR), ("4 h < estimate <= 15 h", 4 * HOUR, 15 * HOUR),
               ("estimate > 15 h", 15 * HOUR, 1 << 62))
    for name, lo, hi in classes:
        w = [j[4] for j in jobs if lo < j[3] <= hi or (lo == 0 and j[3] <= hi)]
        print("  %-24s %6d jobs, recorded mean wait %7.0f s, %4.1f %% of all waiting" %
              (name, len(w), sum(w) / len(w), 100.0 * sum(w) / (rec * n)))

    # The rules in the data.
    print("\nthe site's rules, checked on the recorded starts (PWA notes on the log):")
    stock = ZoneInfo("Europe/Stockholm")
    for label, zone in (("UTC", UTC), ("Europe/Stockholm", stock)):
        r = Rules(jobs, zone=zone)
        pre = [j for j in jobs if j[0] + j[4] < SYNC_UNTIL]
        x = sum(1 for j in pre if r.crosses(j[0] + j[4], j[0] + j[4] + j[3]))
        print("  started before 1997-06-06: %d; start + estimate crosses a weekday 07:00 "
              "or 16:00 (%s): %d (%.1f %%)" % (len(pre), label, x, 100.0 * x / len(pre)))
    for label, lo, hi in (("before 1997-06-06", -1 << 62, SYNC_UNTIL), ("from 1997-06-06", SYNC_UNTIL, 1 << 62)):
        s = [j for j in jobs if lo <= j[0] + j[4] < hi]
        x = sum(1 for j in s if j[3] > LIMIT[kind(j[0] + j[4])])
        print("  started %s: %d; estimate over the limit of when it started "
              "(4 h weekdays 07-16, 15 h nights, 60 h weekends; UTC): %d (%.1f %%)" %
              (label, len(s), x, 100.0 * x / len(s)))
    over = sum(1 for j in jobs if j[1] > j[3] > 0)
    print("  jobs that ran longer than their estimate: %d (the site did not kill at the estimate)" % over)

    # Capacity.
    T, B = busy_profile(jobs)
    span = T[-1] - T[0]
    area = sum(B[k] * (T[k + 1] - T[k]) for k in range(len(T) - 1))
    full = sum(T[k + 1] - T[k] for k in range(len(T) - 1) if B[k] >= N)
    weeks = {}
    for k in range(len(T) - 1):
        w = (T[k] - T[0]) // (7 * 86400)
        weeks[w] = max(weeks.get(w, 0), B[k])
    first = next(T[k] for k in range(len(T)) if B[k] > 86)
    early = max(B[k] for k in range(len(T)) if T[k] < first)
    print("\ncapacity, from the recorded start and end times:")
    print("  busy processors: mean %.1f, max %d; 100 or more busy %.1f %% of the time" %
          (area / span, max(B), 100.0 * full / span))
    print("  weeks in which 99 or more were busy at some time: %d of %d" %
          (sum(1 for v in weeks.values() if v >= 99), len(weeks)))
    print("  until day %.1f (%s UTC) at most %d were busy at once" %
          (first / 86400, local(first, UTC).strftime("%Y-%m-%d %H:%M"), early))
    rules = Rules(jobs)
    tot, lng = stalled(jobs, rules)
    print("  time the first waiting job the rules allow fitted in the free processors and "
          "did not start: %.1f days (%.1f days in stretches of 1 h or more)" %
          (tot / 86400, lng / 86400))

    # Experiments.
    tmp = tempfile.mkdtemp(prefix="kth-gap.")
    het = Hetlab(exe, tmp)
    base = []

    def row(name, h, r):
        x = h if h is not None else r
        if not base:
            base.append(x)
        print("  %-66s %8s %8s %5.2fx %4.0f %%" % (
            name, "%.1f" % h if h is not None else "-", "%.1f" % r if r is not None else "-",
            x / rec, 100.0 * (x - base[0]) / (rec - base[0])))

    print("\nreplays: mean wait (s) by hetlab run and by the replica of its EASY; the ratio "
          "to the recorded %.0f s; the share of the gap closed" % rec)
    print("  %-66s %8s %8s %6s %5s" % ("", "hetlab", "replica", "ratio", "gap"))
    log_abs = os.path.abspath(LOG)
    out = [(0, first, 14)]
    row("A  EASY on 100 nodes, estimates enforced (scenarios/kth-sp2.json)",
        het.mean(log_abs), easy(jobs))
    row("B  A, estimates not enforced (enforce_walltime false)",
        het.mean(log_abs, enforce=False), easy(jobs, enforce=False))
    join = [{"at": first, "node_join": {"rack": "late", "power_kw": 15, "type": "sp2-node",
                                        "count": 14}}]
    row("C  A, 86 nodes until day %.1f, then 100 (node_join of 14)" % (first / 86400),
        het.mean(log_abs, nodes=86, events=join), easy(jobs, down=out))
    crash = [{"at": 0, "fail": "node_crash", "node": "r-n%d" % k, "repair_h": first / 3600.0}
             for k in range(87, N + 1)]
    row("C' C as node_crash of 14 nodes repaired at day %.1f (see the text)" % (first / 86400),
        het.mean(log_abs, events=crash), easy(jobs, down=out))
    for m in (98, 94, 90, 87):
        path = os.path.join(tmp, "clip%d.swf" % m)

        def clip(v, m=m):
            for f in (4, 7):
                if int(v[f]) > m:
                    v[f] = str(m)
        write_swf(path, clip)
        cj = [[a, b, min(c, m), d, e] for a, b, c, d, e in jobs]
        row("D  A on %d nodes all year (larger jobs cut to %d)" % (m, m),
            het.mean(path, nodes=m), easy(cj, nodes=m))
    row("E  A, run-time limits by the time a job starts (4 h / 15 h / 60 h)", None,
        easy(jobs, rules=Rules(jobs, sync=False)))
    wf = easy(jobs, rules=rules, waits=True)
    row("F  E, and no job across weekday 07:00 or 16:00 before 1997-06-06", None, sum(wf) / n)
    shift = []

    def eligible(v):
        t, e = int(v[1]), int(v[8])
        t0 = t
        while not rules.ok(t, e):
            t = rules.points[bisect.bisect_right(rules.points, t)]
        shift.append(t - t0)
        v[1] = str(t)
    path = os.path.join(tmp, "eligible.swf")
    write_swf(path, eligible)
    kept = sum(s for s, u in zip(shift, usable_lines()) if u) / n
    row("G  F in hetlab: each submit moved to the first start the rules allow",
        het.mean(path) + kept, None)
    wh = easy(jobs, enforce=False, rules=rules, down=out, waits=True)
    row("H  F + B + C", None, sum(wh) / n)
    for m in (99, 98):
        cj = [[a, b, min(c, m), d, e] for a, b, c, d, e in jobs]
        row("I  H on %d nodes (larger jobs cut to %d)" % (m, m), None,
            easy(cj, nodes=m, enforce=False, rules=rules, down=out))
    wa = easy(jobs, waits=True)
    print("\nmean wait (s) by estimate: recorded, A, F, H")
    for name, lo, hi in classes:
        ix = [i for i, j in enumerate(jobs) if lo < j[3] <= hi or (lo == 0 and j[3] <= hi)]
        print("  %-24s %8.0f %8.0f %8.0f %8.0f" % (
            name, sum(jobs[i][4] for i in ix) / len(ix), sum(wa[i] for i in ix) / len(ix),
            sum(wf[i] for i in ix) / len(ix), sum(wh[i] for i in ix) / len(ix)))
    subprocess.run(["rm", "-rf", tmp], check=True)


def usable_lines():
    """For each job line of the log: is it a job the replay keeps?"""
    out = []
    with gzip.open(LOG, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            v = line.split()
            p = int(v[4]) if int(v[4]) > 0 else int(v[7])
            out.append(p > 0 and int(v[3]) >= 0)
    return out


if __name__ == "__main__":
    main()
