#!/usr/bin/env python3
"""slurmlog.py SLURMCTLD_LOG — when slurmctld took each job in and when it
made it RUNNING, to the millisecond, from its own log (bench/slurm-live.sh).

Prints one line a Slurm job: JOBID SUBMIT RUNNING, both Unix seconds with
milliseconds ('-' when the log has no such line). SUBMIT is the line
'_slurm_rpc_submit_batch_job: JobId=N'; RUNNING the first of 'sched:
Allocate JobId=N' (the main scheduler, or the submission itself) and
'sched/backfill: _start_job: Started JobId=N' (the backfill scheduler):
the moment slurmctld gave the job its nodes and set it RUNNING; the batch
script starts later, once slurmd on the node has launched it. sacct's Start
is the same moment, cut to the second. The log's times are slurmctld's
local time (LogTimeFormat iso8601_ms, the default), read here in this
process's time zone: run it where slurmctld runs. Two more columns follow:
END, the '_job_complete: JobId=N done' line ('-' when none), and BY, the
scheduler that started the job ('main', 'backfill' or '-').

slurmlog.py waves SLURMCTLD_LOG XREF DECISIONS — hetlab's start decisions
in their passes (the daemon decides a pass's starts at one moment): for
each pass its time and number of starts, and the min/median/max of when
slurmctld had their submissions, made them RUNNING and saw them end, all
in seconds from the first pass; then how many of the jobs Slurm's main
scheduler started and how many its backfill pass. XREF has lines
'SLURM_ID JOB', DECISIONS lines 'JOB UNIX_SECONDS' (bench/slurm-live.sh
writes both).
"""
import re
import sys
import time

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\] (.*)$")
SUBMIT = re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) ")
RUN = re.compile(r"(?:sched: Allocate JobId=(\d+) |_start_job: Started JobId=(\d+) )")
END = re.compile(r"_job_complete: JobId=(\d+) done")


def read_log(path):
    """{id: submit}, {id: running}, {id: end}, {id: 'main' or 'backfill'}."""
    sub, run, end, by = {}, {}, {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            m = STAMP.match(line)
            if not m:
                continue
            t = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) + int(m.group(2)) / 1000
            rest = m.group(3)
            s = SUBMIT.search(rest)
            if s:
                sub.setdefault(int(s.group(1)), t)
                continue
            r = RUN.search(rest)
            if r:
                jid = int(r.group(1) or r.group(2))
                if jid not in run:
                    run[jid] = t
                    by[jid] = "main" if r.group(1) else "backfill"
                continue
            e = END.search(rest)
            if e:
                end.setdefault(int(e.group(1)), t)
    return sub, run, end, by


def spread(v):
    if not v:
        return "-"
    v = sorted(v)
    return "%.2f/%.2f/%.2f" % (v[0], v[len(v) // 2], v[-1])


def waves(log, xref, dec):
    sub, run, end, by = read_log(log)
    sid = {}
    with open(xref) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                sid[int(p[1])] = int(p[0])   # the last Slurm job of each hetlab job
    passes = {}
    with open(dec) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                passes.setdefault(float(p[1]), []).append(int(p[0]))
    if not passes:
        print("  no start decisions")
        return 0
    t0 = min(passes)
    count = {"main": 0, "backfill": 0}
    print("  start passes (s from the first; slurmctld's submit, RUNNING and end of their jobs, min/median/max):")
    for t in sorted(passes):
        ids = [sid[j] for j in passes[t] if j in sid]
        for i in ids:
            if i in by:
                count[by[i]] += 1
        print("    %6.2f s: %3d starts, submitted %s, RUNNING %s, ended %s" % (
            t - t0, len(passes[t]), spread([sub[i] - t0 for i in ids if i in sub]),
            spread([run[i] - t0 for i in ids if i in run]), spread([end[i] - t0 for i in ids if i in end])))
    print("  started by Slurm's main scheduler %d, by its backfill pass %d" % (count["main"], count["backfill"]))
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "waves":
        return waves(argv[2], argv[3], argv[4])
    if len(argv) != 2:
        sys.stderr.write("usage: slurmlog.py SLURMCTLD_LOG | slurmlog.py waves SLURMCTLD_LOG XREF DECISIONS\n")
        return 2
    sub, run, end, by = read_log(argv[1])
    for jid in sorted(set(sub) | set(run)):
        a, b, c = sub.get(jid), run.get(jid), end.get(jid)
        print(jid, "%.3f" % a if a is not None else "-", "%.3f" % b if b is not None else "-",
              "%.3f" % c if c is not None else "-", by.get(jid, "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
