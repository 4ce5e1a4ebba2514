"""twinfacts — the figures of bench/twin.sh read back (twinload.py summary)
and Slurm's own timing read from the real runs (twinload.py facts).

summary(OUT): for each workload directory of OUT (with an `info` file),
the twin's comparisons (runK/check.json, `hetlab twin check --json`) and
the real runs' against each other (spread-I-J.json), a table, each
target's verdict, and the bench's last line. Standard library only.
"""
import glob
import json
import math
import os
import re
from datetime import datetime, timezone


def pct(v, p):
    """Linear interpolation between closest ranks (as hetlab's reports)."""
    if not v:
        return float("nan")
    v = sorted(v)
    x = p * (len(v) - 1)
    i = int(math.floor(x))
    return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])


def num(x, fmt):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt % x


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def row(label, c):
    return ("    %-20s %5d %5d/%-4d %9s %9s %8s  %7s %6s  %7s %6s  %6s  %6s  %5d/%-5d" % (
        label, c["matched"], c["only_a"], c["only_b"], num(c["wait_mean_a_s"], "%.1f"),
        num(c["wait_mean_b_s"], "%.1f"), num(c["wait_err_pct"], "%+.1f"), num(c["dstart_p50_s"], "%.1f"),
        num(c["dstart_p50_bf"], "%.2f"), num(c["dstart_p90_s"], "%.1f"), num(c["dstart_p90_bf"], "%.2f"),
        num(None if c["within_bf"] is None else 100 * c["within_bf"], "%.1f"), num(c["tau_b"], "%.3f"),
        c["preempt_a"], c["preempt_b"])).rstrip()


def merged(cs):
    """The replays of one real run with several seeds (their check.json's)
    as one comparison: the mean of their mean waits, the |start difference|
    of every job of every replay; 'errs' the replays' own mean-wait errors."""
    cs = [c for c in cs if c and c["matched"]]
    if not cs:
        return None
    if len(cs) == 1:
        c = dict(cs[0])
        c["errs"] = [c["wait_err_pct"]]
        return c
    c = dict(cs[0])
    a = c["wait_mean_a_s"]
    b = mean([x["wait_mean_b_s"] for x in cs])
    d = [abs(p[3]) for x in cs for p in x["pairs"]]
    bf = c["bf_interval_s"]
    c.update({
        "wait_mean_b_s": b,
        "wait_err_pct": (b - a) / a * 100 if a else None,
        "pairs": [p for x in cs for p in x["pairs"]],
        "dstart_p50_s": pct(d, 0.5), "dstart_p90_s": pct(d, 0.9),
        "dstart_p50_bf": pct(d, 0.5) / bf if bf else None, "dstart_p90_bf": pct(d, 0.9) / bf if bf else None,
        "within_bf": sum(1 for x in d if x <= bf) / len(d) if d and bf else None,
        "tau_b": mean([x["tau_b"] for x in cs]),
        "preempt_b": int(round(mean([x["preempt_b"] for x in cs]))),
        "errs": [x["wait_err_pct"] for x in cs],
    })
    return c


def summary(out):
    dirs = sorted(d for d in glob.glob(os.path.join(out, "*")) if os.path.isfile(os.path.join(d, "info")))
    if not dirs:
        print("twin: no workload in %s" % out)
        return 1
    print()
    print("  A: the real run; B: the twin's replays of it (seeds, together), or the other real run. Waits in s;")
    print("  p50 and p90 of |start difference| in s and in bf_intervals; in 1bf: % of jobs within one bf_interval.")
    print("    %-20s %5s %10s %9s %9s %8s  %7s %6s  %7s %6s  %6s  %6s  %11s" % (
        "", "jobs", "unmatched", "wait A", "wait B", "err %", "p50 s", "bf", "p90 s", "bf", "in 1bf", "tau-b",
        "preempt A/B"))
    twin_err, own_err, twin_d, own_d, ntwin = [], [], [], [], 0
    for d in dirs:
        info = dict(line.rstrip("\n").split("=", 1) for line in open(os.path.join(d, "info")) if "=" in line)
        print("  %s: %s jobs, bf_interval %s s; %s" % (info.get("workload"), info.get("jobs"),
                                                       info.get("bf_interval"), info.get("what")))
        twins = []
        for rd in sorted(glob.glob(os.path.join(d, "run*"))):
            seeds = sorted(glob.glob(os.path.join(rd, "check-s*.json")),
                           key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
            c = merged([load(p) for p in seeds] or [load(os.path.join(rd, "check.json"))])
            if c:
                twins.append((os.path.basename(rd), c))
        owns = [(re.sub(r"^spread-(\d+)-(\d+)\.json$", r"run\1 vs run\2", os.path.basename(p)), load(p))
                for p in sorted(glob.glob(os.path.join(d, "spread-*.json")))]
        for label, c in twins:
            print(row("twin vs " + label, c))
        for label, c in twins:
            if len(c["errs"]) > 1:
                print("      %s: %d replays (seeds), mean wait error from %+.1f to %+.1f %%" % (
                    label, len(c["errs"]), min(c["errs"]), max(c["errs"])))
        for label, c in owns:
            if c:
                print(row("Slurm " + label, c))
        twins = [c for _, c in twins if c and c["matched"]]
        owns = [c for _, c in owns if c and c["matched"]]
        e = mean([abs(c["wait_err_pct"]) for c in twins if c["wait_err_pct"] is not None])
        r = mean([abs(c["wait_err_pct"]) for c in owns if c["wait_err_pct"] is not None])
        td = [abs(p[3]) for c in twins for p in c["pairs"]]
        od = [abs(p[3]) for c in owns for p in c["pairs"]]
        if twins:
            twin_err.append(e)
            twin_d += td
            ntwin += sum(c["matched"] for c in twins)
        if owns:
            own_err.append(r)
            own_d += od
        if not twins or not owns:
            print("    targets: not judged (%s)" % ("no twin comparison" if not twins else "no second real run"))
            continue
        m, s, p9, q9 = pct(td, 0.5), pct(od, 0.5), pct(td, 0.9), pct(od, 0.9)
        verdict = [
            ("mean wait error %.1f %% <= max(Slurm's own %.1f %%, 5 %%)" % (e, r), e <= max(r, 5.0)),
            ("median |dstart| %.1f s <= 1.2 x %.1f s" % (m, s), m <= 1.2 * s),
            ("p90 |dstart| %.1f s <= 1.2 x %.1f s" % (p9, q9), p9 <= 1.2 * q9),
        ]
        for text, ok in verdict:
            print("    target: %-60s %s" % (text, "met" if ok else "NOT met"))
    print()
    print("twin: %d jobs, mean wait error %s %% (Slurm's own %s %%), median |dstart| %s s (Slurm's own %s s), "
          "p90 |dstart| %s s (Slurm's own %s s)" % (
              ntwin, num(mean(twin_err), "%.1f"), num(mean(own_err), "%.1f"), num(pct(twin_d, 0.5), "%.1f"),
              num(pct(own_d, 0.5), "%.1f"), num(pct(twin_d, 0.9), "%.1f"), num(pct(own_d, 0.9), "%.1f")))
    return 0


# ---- Slurm's own timing, from the real runs (twinload.py facts) ----

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\] (.*)$")
PATTERNS = [
    ("submit", re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) ")),
    ("main", re.compile(r"sched: Allocate JobId=(\d+) ")),
    ("backfill", re.compile(r"_start_job: Started JobId=(\d+) ")),
    ("end", re.compile(r"_job_complete: JobId=(\d+) done")),
    ("preempt", re.compile(r"preempted JobId=(\d+) has been")),
    ("preemptor", re.compile(r"preempted JobId=\d+ has been \w+ to reclaim resources for JobId=(\d+)")),
    ("requeue", re.compile(r"[Rr]equeu\w* JobId=(\d+)")),
    ("bf_begin", re.compile(r"_attempt_backfill: beginning()")),
    ("bf_done", re.compile(r"_attempt_backfill: completed testing \d+\(\d+\) jobs, usec=(\d+)")),
    ("sched_full", re.compile(r"sched: Running job scheduler for full queue()")),
    ("sched_depth", re.compile(r"sched: Running job scheduler for default depth()")),
]


def read_log(path):
    """[(t, kind, value)] in log order; times in this host's zone, as slurmctld wrote them."""
    ev = []
    with open(path, errors="replace") as f:
        for line in f:
            m = STAMP.match(line)
            if not m:
                continue
            for kind, rx in PATTERNS:
                s = rx.search(m.group(3))
                if s:
                    t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").timestamp() + int(m.group(2)) / 1000
                    ev.append((t, kind, s.group(1)))
    return ev


def expand(nodelist):
    """n[1-3,5],n7 -> {n1, n2, n3, n5, n7}."""
    out = set()
    for m in re.finditer(r"([A-Za-z]+)(?:\[([\d,\-]+)\]|(\d+))", nodelist or ""):
        if m.group(3):
            out.add(m.group(1) + m.group(3))
            continue
        for part in m.group(2).split(","):
            a, _, b = part.partition("-")
            for k in range(int(a), int(b or a) + 1):
                out.add(m.group(1) + str(k))
    return out


def utc(s):
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None


def sacct_rows(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("|")
        return [dict(zip(head, line.rstrip("\n").split("|"))) for line in f if "|" in line]


def dist(v, unit="s", fmt="%.2f"):
    if not v:
        return "none"
    return ("n %d, min " + fmt + ", p10 " + fmt + ", median " + fmt + ", p90 " + fmt + ", max " + fmt + " %s") % (
        len(v), min(v), pct(v, 0.1), pct(v, 0.5), pct(v, 0.9), max(v), unit)


def counts(v):
    c = {}
    for x in v:
        c[x] = c.get(x, 0) + 1
    return ", ".join("%s: %d" % (k, c[k]) for k in sorted(c))


def one_run(rd):
    ev = read_log(os.path.join(rd, "slurmctld.log"))
    rows = sacct_rows(os.path.join(rd, "run.sacct"))
    ctld = float(open(os.path.join(rd, "ctld-start")).read())
    bf = None
    for line in open(os.path.join(rd, "slurm.conf")):
        m = re.search(r"bf_interval=(\d+)", line)
        if m:
            bf = int(m.group(1))
    sub, starts, ends = {}, {}, {}
    for t, k, v in ev:
        if k == "submit":
            sub.setdefault(v, t)
        elif k in ("main", "backfill"):
            starts.setdefault(v, []).append((t, k))
        elif k in ("end", "preempt"):
            ends.setdefault(v, []).append(t)
    return ev, rows, ctld, bf or 30, sub, starts, ends


def facts(rundirs):
    idle, idle_by, idle_next_bf, idle_next_main = [], [], [], []
    after, after_by, after_s, by_after = [], [], [], []
    bf_gap, bf_phase, bf_phase1, bf_usec, first_bf, sched_full = [], [], [], [], [], []
    requeue, rq_sub, by_preemptor = [], [], []
    for rd in rundirs:
        ev, rows, ctld, bf, sub, starts, ends = one_run(rd)
        # (c) backfill cycles and main passes
        begins = [t for t, k, _ in ev if k == "bf_begin"]
        bf_gap += [round(b - a, 3) for a, b in zip(begins, begins[1:])]
        bf_phase += [round((b - ctld) % bf, 1) for b in begins]
        bf_phase1 += [round((b - ctld) % 1, 2) for b in begins]
        bf_usec += [int(v) for _, k, v in ev if k == "bf_done"]
        if begins:
            first_bf.append(round(begins[0] - ctld, 2))
        full = [t for t, k, _ in ev if k == "sched_full"]
        mains = [t for t, k, _ in ev if k in ("sched_full", "sched_depth")]
        sched_full += [round(b - a, 1) for a, b in zip(full, full[1:])]
        # (a) a job submitted to an idle cluster (nothing running or pending)
        busy = []
        for j, ss in starts.items():
            for i, (t, _) in enumerate(ss):
                e = ends.get(j, [])
                busy.append((t, e[i] if i < len(e) else float("inf")))
        for j, t in sub.items():
            if j not in starts:
                continue
            pending = any(sub[o] < t and starts.get(o, [(float("inf"), "")])[0][0] > t for o in sub if o != j)
            running = any(a <= t < b for a, b in busy)
            if not pending and not running:
                st, kind = starts[j][0]
                idle.append(round(st - t, 3))
                idle_by.append(kind)
                nb = [b for b in begins if b >= t]
                nm = [m for m in mains if m >= t]
                idle_next_bf.append(round(nb[0] - t, 3) if nb else float("nan"))
                idle_next_main.append(round(nm[0] - t, 3) if nm else float("nan"))
        # (b) a start after an end on one of its nodes, the job waiting then
        runs = []
        for r in rows:
            s, e = utc(r.get("Start", "")), utc(r.get("End", ""))
            if s is not None:
                runs.append((r["JobIDRaw"], s, e, expand(r.get("NodeList"))))
        for jid, s, _, nodes in runs:
            ls = [t for t, _ in starts.get(jid, [])]
            # the log's start of this run: the one within a second of sacct's
            lt = [(t, k) for t, k in starts.get(jid, []) if abs(t - s) < 1.5]
            if not lt or jid not in sub:
                continue
            t, kind = lt[0]
            prev = [(e, oj) for oj, s2, e, n2 in runs if e is not None and oj != jid and n2 & nodes and e <= s
                    and e > sub[jid]]
            if not prev:
                continue
            e_s, oj = max(prev)
            le = [x for x in ends.get(oj, []) if abs(x - e_s) < 1.5 and x <= t]
            if not le:
                continue
            d = t - max(le)
            if d > 60:
                continue
            after.append(round(d, 3))
            after_by.append(kind)
            after_s.append(int(s - e_s))
            nb = [b for b in begins if b >= max(le)]
            at_bf = bool(nb) and kind == "backfill" and abs(nb[0] - t) < 0.5
            by_after.append("%s%s" % (kind, " (the next cycle)" if at_bf else ""))
            del ls
        # (d) the preemptor's start after its preemptions
        pre = {}
        for t, k, v in ev:
            if k == "preemptor":
                pre.setdefault(v, []).append(t)
        for j, ts in pre.items():
            later = [t for t, _ in starts.get(j, []) if t >= ts[0]]
            if later:
                by_preemptor.append(round(later[0] - max(t for t in ts if t <= later[0]), 3))
        # (d) requeued runs: from the end of a PREEMPTED/REQUEUED row to the next row's start
        byjob = {}
        for r in rows:
            byjob.setdefault(r["JobIDRaw"], []).append(r)
        for jid, rs in byjob.items():
            rs.sort(key=lambda r: utc(r["Start"]) or 0)
            for a, b in zip(rs, rs[1:]):
                ea, sb = utc(a["End"]), utc(b["Start"])
                if ea is None or sb is None:
                    continue
                requeue.append(sb - ea)
                rq_sub.append("Submit %+d s, Eligible %+d s" % (utc(b["Submit"]) - ea, utc(b["Eligible"]) - ea))
    print("# Slurm's own timing, from %d real run(s): %s" % (len(rundirs), " ".join(rundirs)))
    print()
    print("(a) start − submit for jobs submitted to an idle cluster (log, ms): " + dist(idle, "s", "%.3f"))
    print("    by scheduler: " + counts(idle_by))
    for k in ("main", "backfill"):
        print("    started by %s: %s" % (k, dist([d for d, b in zip(idle, idle_by) if b == k], "s", "%.3f")))
    print("    submit to the next backfill cycle's beginning: " + dist([x for x in idle_next_bf if x == x], "s", "%.3f"))
    print("    submit to the next main pass ('Running job scheduler'): " +
          dist([x for x in idle_next_main if x == x], "s", "%.3f"))
    print("(b) start − the latest end (log) on one of its nodes, the job pending then: " + dist(after, "s", "%.3f"))
    print("    by scheduler: " + counts(by_after))
    for k in ("main", "backfill"):
        print("    started by %s: %s" % (k, dist([d for d, b in zip(after, after_by) if b == k], "s", "%.3f")))
    print("    in sacct's seconds (Start − End): " + counts(after_s))
    bins = [0, 0.05, 0.5, 1, 2, 3, 5, 10, 60]
    h = ["[%g, %g) s: %d" % (a, b, sum(a <= x < b for x in after)) for a, b in zip(bins, bins[1:])]
    print("    " + ", ".join(h))
    print("(c) backfill cycles: interval between beginnings " + dist(bf_gap, "s", "%.3f"))
    print("    phase (beginning − slurmctld's start) mod bf_interval: " + dist(bf_phase, "s", "%.1f"))
    print("    phase mod 1 s: " + dist(bf_phase1, "s", "%.2f"))
    print("    first cycle after slurmctld's start: " + ", ".join("%.2f s" % x for x in first_bf))
    print("    cycle length: " + dist([u / 1e6 for u in bf_usec], "s", "%.4f"))
    print("    main scheduler full-queue passes, interval: " + dist(sched_full, "s", "%.1f"))
    print("(d) the preemptor's start − its (last) preemption (log): " + dist(by_preemptor, "s", "%.3f"))
    print("    requeued runs, the next run's Start − the earlier run's End (sacct -D): " + dist(requeue, "s", "%.0f"))
    print("    the next row's Submit and Eligible against the earlier End: " + counts(rq_sub))
