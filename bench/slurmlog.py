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
process's time zone: run it where slurmctld runs.
"""
import re
import sys
import time

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\] (.*)$")
SUBMIT = re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) ")
RUN = re.compile(r"(?:sched: Allocate JobId=(\d+) |_start_job: Started JobId=(\d+) )")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: slurmlog.py SLURMCTLD_LOG\n")
        return 2
    sub, run = {}, {}
    with open(argv[1], errors="replace") as f:
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
                run.setdefault(int(r.group(1) or r.group(2)), t)
    for jid in sorted(set(sub) | set(run)):
        a, b = sub.get(jid), run.get(jid)
        print(jid, "%.3f" % a if a is not None else "-", "%.3f" % b if b is not None else "-")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
