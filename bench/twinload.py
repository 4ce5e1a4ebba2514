#!/usr/bin/env python3
"""twinload.py — the workloads of bench/twin.sh (validation of the Slurm
twin against a real Slurm), their submission, and the figures read back.

  twinload.py gen WORKLOAD DIR [--jobs N] [--seed S] [--load X] [--max-run S]
      Writes DIR/jobs.tsv (one job a line, below), DIR/slurm.conf.extra
      (the workload's slurm.conf lines, for LOCAL_SLURM_CONF_EXTRA),
      DIR/sacctmgr.txt (its accounts and QOS, for LOCAL_SLURM_SACCTMGR)
      and DIR/info (key=value: bf_interval, jobs, the arrival span and a
      deadline). WORKLOAD: fairshare, agesize or preempt.
  twinload.py submit DIR/jobs.tsv LOG [--deadline S]
      Submits each job with sbatch at its time from now (bursts in
      parallel), then waits until squeue and sacct show none pending or
      running. LOG gets one line a job: name, planned and actual submit
      (s from the start), Slurm job id or the error. Exit 1 when a
      submission failed or the deadline passed.
  twinload.py probe N LOG
      Slurm's reaction times on the idle cluster the environment's
      SLURM_CONF names: N jobs submitted alone, then N pairs of a job that
      holds every CPU and a job queued behind it (facts reads them).
  twinload.py phase RUN.sacct CTLD_START
      Prints ctld_start_s: slurmctld's start (Unix s, from
      local-slurm.sh's DIR/ctld-start) minus the dump's first Submit.
  twinload.py facts RUNDIR...
      Slurm's own timing, from each run's run.sacct and slurmctld.log.
  twinload.py summary OUT
      The bench's table from OUT/WORKLOAD/check-*.json (hetlab twin check
      --json), and its last line.

The shapes come from the KTH SP2 log in traces/data (28,476 jobs, 1996-97):
a window of consecutive jobs (its start drawn from the seed), whose
processors, run times, user estimates, users and gaps are mapped onto the
test cluster (local-slurm.sh's six nodes, here with 16 CPUs, 32,000 MiB and
two fake GPUs each):

- run time: log-linear from [30 s, 1 day] onto [10, 300] s (clamped;
  --max-run sets the 300);
- time limit: the log's estimate over its run time, clamped to
  [1.5, 10], times the new run time, in whole minutes (--time);
- CPUs: ceil(0.4 x processors), at most 48; over 16 CPUs (or half of
  the jobs of 6 to 16) the job is 2 or 3 nodes with --ntasks-per-node,
  the same on each; a third of the jobs run threads (--cpus-per-task);
- memory: --mem-per-cpu (40 %), --mem per node (30 %), none (DefMemPerCPU);
- GPUs: a fifth of the jobs --gres=gpu:fake:1 or 2 (per node);
- accounts a1-a4: the log's users ranked by their jobs, dealt in turn;
- partition: short (PriorityTier 2, n[3-6], MaxTime 10) for 40 % of the
  jobs whose limit fits, else batch (PriorityTier 1, all nodes);
- gaps: the log's, scaled so that the offered load (CPU-seconds over the
  arrival span) is --load (default 1.2) times the cluster's CPUs.

jobs.tsv: name t_s account qos partition nodes ntasks_per_node
cpus_per_task mem gres time_min sleep_s kth_id ('-' for none).

Python 3 of Debian, standard library only.
"""
import gzip
import math
import os
import random
import re
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KTH = os.path.join(ROOT, "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz")
NODES, CPUS = 6, 16          # local-slurm.sh LOCAL_SLURM_CPUS=16 (LOCAL_SLURM_MEM=32000)
BF_INTERVAL = 2
ACCOUNTS = ["a1", "a2", "a3", "a4"]

COMMON_CONF = """\
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=%(bf)d,bf_resolution=10
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityDecayHalfLife=00:10:00
PriorityMaxAge=00:10:00
SlurmctldDebug=debug
DebugFlags=Backfill
PartitionName=batch Nodes=n[1-6] Default=YES PriorityTier=1 MaxTime=60 State=UP
PartitionName=short Nodes=n[3-6] PriorityTier=2 MaxTime=10 State=UP
"""


def weights(fairshare, age, jobsize, qos):
    return ("PriorityWeightFairshare=%d\nPriorityWeightAge=%d\nPriorityWeightJobSize=%d\n"
            "PriorityWeightQOS=%d\nPriorityWeightPartition=0\n" % (fairshare, age, jobsize, qos))


# Each workload: its priority weights, extra slurm.conf lines, sacctmgr
# set-up (accounts with shares, QOS) and the jobs' QOS mix (by default two
# QOS without preemption whose priority no weight counts).
TWO_QOS = {"qos": [("normal", 0.85), ("high", 0.15)], "qos_setup": ["add qos high Priority=100"]}
WORKLOADS = {
    "fairshare": dict(TWO_QOS, **{
        "what": "fair share dominates: shares 10/20/30/40, the busiest users in the smallest share",
        "conf": weights(10000, 500, 0, 0),
        "shares": [10, 20, 30, 40],
    }),
    "agesize": dict(TWO_QOS, **{
        "what": "age (PriorityMaxAge 10 min) and size (large first) dominate, equal shares",
        "conf": weights(500, 10000, 4000, 0),
        "shares": [25, 25, 25, 25],
    }),
    "preempt": {
        "what": "QOS preemption: high preempts normal (REQUEUE) and low (CANCEL)",
        "conf": weights(1000, 1000, 0, 10000) + "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n",
        "shares": [25, 25, 25, 25],
        "qos": [("low", 0.30), ("normal", 0.52), ("high", 0.18)],
        "qos_setup": ["add qos low Priority=0 PreemptMode=cancel",
                      "modify qos where name=normal set Priority=10 PreemptMode=requeue",
                      "add qos high Priority=100 Preempt=low,normal PreemptMode=requeue"],
    },
}


def die(msg):
    sys.stderr.write("twinload: %s\n" % msg)
    sys.exit(1)


def read_kth():
    """The log's usable jobs: (id, submit, run, procs, estimate, user)."""
    jobs = []
    with gzip.open(KTH, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            v = line.split()
            if len(v) < 18:
                continue
            jid, sub, run, procs, est, user = int(v[0]), int(v[1]), int(v[3]), int(v[4]), int(v[8]), int(v[11])
            if run > 0 and procs > 0:
                jobs.append((jid, sub, run, procs, est if est > 0 else run, user))
    return jobs


def pick(rng, mix):
    x, acc = rng.random(), 0.0
    for name, p in mix:
        acc += p
        if x < acc:
            return name
    return mix[-1][0]


def shape(rng, procs):
    """(nodes, tasks per node, CPUs per task) for the log's processors."""
    cpus = min(48, max(1, math.ceil(0.4 * procs)))
    nodes = 1
    if cpus > CPUS:
        nodes = math.ceil(cpus / CPUS)
    elif cpus >= 6 and rng.random() < 0.5:
        nodes = 2
    per_node = math.ceil(cpus / nodes)
    if per_node >= 2 and rng.random() < 1 / 3:
        cpt = 2 if per_node % 2 == 0 else 1
        return nodes, per_node // cpt, cpt
    return nodes, per_node, 1


def gen(name, out, njobs, seed, load, max_run):
    w = WORKLOADS.get(name) or die("no workload %r (%s)" % (name, ", ".join(WORKLOADS)))
    rng = random.Random("%s-%d" % (name, seed))
    log = read_kth()
    first = rng.randrange(0, len(log) - njobs)
    win = log[first:first + njobs]
    count = {}
    for j in win:
        count[j[5]] = count.get(j[5], 0) + 1
    rank = {u: i for i, u in enumerate(sorted(count, key=lambda u: (-count[u], u)))}
    rows, work = [], 0.0
    lo, hi = math.log(30), math.log(86400)
    for k, (jid, sub, run, procs, est, user) in enumerate(win):
        x = min(1.0, max(0.0, (math.log(run) - lo) / (hi - lo)))
        sleep = round(10 * math.exp(x * math.log(max_run / 10)))
        ratio = min(10.0, max(1.5, est / run))
        tmin = max(1, math.ceil(sleep * ratio / 60))
        nodes, tpn, cpt = shape(rng, procs)
        u = rng.random()
        mem = ("mem-per-cpu=%d" % rng.choice([500, 1000, 1500, 2000]) if u < 0.4 else
               "mem=%d" % (tpn * cpt * rng.choice([500, 1000, 2000])) if u < 0.7 else "-")
        gres = "gpu:fake:%d" % rng.choice([1, 1, 2]) if rng.random() < 0.2 else "-"
        part = "short" if tmin <= 10 and rng.random() < 0.4 else "batch"
        qos = pick(rng, w["qos"])
        acct = ACCOUNTS[rank[user] % len(ACCOUNTS)]
        work += nodes * tpn * cpt * sleep
        rows.append(["j%04d" % (k + 1), sub, acct, qos, part, nodes, tpn, cpt, mem, gres, tmin, sleep, jid])
    span0 = max(1, win[-1][1] - win[0][1])
    span = work / (load * NODES * CPUS)
    for r in rows:
        r[1] = round((r[1] - win[0][1]) * span / span0, 1)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "jobs.tsv"), "w") as f:
        f.write("# %s: %d jobs of KTH SP2 from job %d, seed %d, load %.2f\n" % (name, njobs, win[0][0], seed, load))
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")
    with open(os.path.join(out, "slurm.conf.extra"), "w") as f:
        f.write(COMMON_CONF % {"bf": BF_INTERVAL} + w["conf"])
    with open(os.path.join(out, "sacctmgr.txt"), "w") as f:
        for line in w["qos_setup"]:
            f.write(line + "\n")
        for a, s in zip(ACCOUNTS, w["shares"]):
            f.write("add account %s cluster=hetlab Fairshare=%d\n" % (a, s))
        f.write("add user root account=%s cluster=hetlab\n" % ",".join(ACCOUNTS))
        qos = ",".join(["normal"] + sorted({q for q, _ in w["qos"]} - {"normal"}))
        f.write("modify user where name=root set QOS=%s\n" % qos)
    longest = max(r[11] for r in rows)
    deadline = int(3 * span + 20 * longest + 600)
    with open(os.path.join(out, "info"), "w") as f:
        f.write("workload=%s\nwhat=%s\njobs=%d\nseed=%d\nload=%.2f\nmax_run_s=%d\nbf_interval=%d\n"
                "span_s=%.0f\nwork_cpu_s=%.0f\ndeadline_s=%d\n" % (name, w["what"], njobs, seed, load, max_run,
                                                                BF_INTERVAL, span, work, deadline))
    print("twinload: %s: %d jobs, arrivals over %.0f s, %.0f CPU-s (at least %.0f s of the cluster) -> %s"
          % (name, njobs, span, work, work / (NODES * CPUS), out))


def sbatch_args(r):
    name, _, acct, qos, part, nodes, tpn, cpt, mem, gres, tmin, sleep = r[:12]
    a = ["sbatch", "--parsable", "--job-name=" + name, "--account=" + acct, "--qos=" + qos,
         "--partition=" + part, "--time=%s" % tmin, "-N", str(nodes), "--ntasks-per-node=%s" % tpn,
         "--cpus-per-task=%s" % cpt, "--output=/dev/null", "--chdir=/tmp"]
    if mem != "-":
        a.append("--" + mem)
    if gres != "-":
        a.append("--gres=" + gres)
    return a + ["--wrap", "sleep %s" % sleep]


def quiet(cmd, timeout=30):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def submit(tsv, logpath, deadline):
    rows = []
    with open(tsv) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append(line.rstrip("\n").split("\t"))
    res, lock = {}, threading.Lock()
    t0 = time.time() + 1.0

    def one(r):
        at = time.time() - t0
        try:
            p = subprocess.run(sbatch_args(r), capture_output=True, text=True, timeout=60)
            out = p.stdout.strip() if p.returncode == 0 else "ERROR " + (p.stderr.strip() or "rc %d" % p.returncode)
        except (OSError, subprocess.TimeoutExpired) as e:
            out = "ERROR %s" % e
        with lock:
            res[r[0]] = (float(r[1]), at, out.replace("\n", " "))

    threads = []
    for r in rows:
        d = t0 + float(r[1]) - time.time()
        if d > 0:
            time.sleep(d)
        t = threading.Thread(target=one, args=(r,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    bad = [n for n, v in res.items() if v[2].startswith("ERROR")]
    with open(logpath, "w") as f:
        for r in rows:
            p, a, o = res[r[0]]
            f.write("%s\t%.1f\t%.3f\t%s\n" % (r[0], p, a, o))
    print("twinload: %d jobs submitted in %.0f s (%d failed; the latest %.2f s after its time)"
          % (len(rows) - len(bad), time.time() - t0, len(bad), max(v[1] - v[0] for v in res.values())))
    end = t0 + deadline
    while time.time() < end:
        rc, out = quiet(["squeue", "-h", "-o", "%i"])
        if rc == 0 and not out.strip():
            break
        time.sleep(2)
    else:
        print("twinload: jobs still queued after the deadline (%d s)" % deadline)
        return 1
    # slurmdbd learns of the ends after slurmctld: wait until sacct agrees.
    since = datetime.fromtimestamp(t0 - 60, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    for _ in range(120):
        rc, out = quiet(["sacct", "-a", "-X", "-n", "-P", "-D", "-S", since, "--format=State"],)
        if rc == 0 and not re.search(r"^(PENDING|RUNNING|REQUEUED|SUSPENDED|COMPLETING)", out, re.M):
            break
        time.sleep(1)
    print("twinload: all jobs ended %.0f s after the first submission" % (time.time() - t0))
    return 1 if bad else 0


def probe(n, logpath, seed):
    """Slurm's reaction times on an otherwise idle cluster: n single jobs
    (3 s, one CPU) each submitted alone, then n pairs of a blocker of every
    CPU (5-9 s) and a one-CPU job submitted behind it, at random phases
    (pauses of 2-9 s): start - submit on an idle cluster, and start after
    the end of the job that held the nodes. The figures: twinload.py facts."""
    rng = random.Random(seed)
    base = ["sbatch", "--parsable", "--account=a1", "--partition=batch", "--time=1", "--output=/dev/null",
            "--chdir=/tmp"]

    def drain():
        while quiet(["squeue", "-h", "-o", "%i"])[1].strip():
            time.sleep(0.2)

    with open(logpath, "w") as log:
        for k in range(n):
            time.sleep(rng.uniform(2, 9))
            rc, out = quiet(base + ["--job-name=idle%02d" % k, "--wrap", "sleep 3"])
            log.write("idle%02d\t%.3f\t%s\n" % (k, time.time(), out.strip()))
            drain()
        for k in range(n):
            time.sleep(rng.uniform(2, 9))
            quiet(base + ["--job-name=block%02d" % k, "-N", str(NODES), "--ntasks-per-node=%d" % CPUS,
                          "--mem-per-cpu=100", "--wrap", "sleep %d" % rng.randint(5, 9)])
            rc, out = quiet(base + ["--job-name=after%02d" % k, "--wrap", "sleep 2"])
            log.write("after%02d\t%.3f\t%s\n" % (k, time.time(), out.strip()))
            drain()
    print("twinload: %d idle jobs and %d pairs -> %s" % (n, n, logpath))


def phase(sacct, ctld):
    from twinfacts import sacct_rows, utc
    subs = [utc(r["Submit"]) for r in sacct_rows(sacct) if "." not in r["JobID"]]
    subs = [s for s in subs if s is not None]
    if not subs:
        die("%s: no job with a Submit time" % sacct)
    with open(ctld) as f:
        print("%.3f" % (float(f.read().strip()) - min(subs)))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    a = sys.argv[1:]

    def opt(name, default, conv):
        if name in a:
            i = a.index(name)
            v = conv(a[i + 1])
            del a[i:i + 2]
            return v
        return default

    if a[:1] == ["gen"]:
        n, s, ld = opt("--jobs", 500, int), opt("--seed", 1, int), opt("--load", 1.2, float)
        mr = opt("--max-run", 300, int)
        len(a) == 3 and mr > 10 or die("usage: twinload.py gen WORKLOAD DIR [--jobs N] [--seed S] [--load X] [--max-run S]")
        gen(a[1], a[2], n, s, ld, mr)
    elif a[:1] == ["submit"]:
        dl = opt("--deadline", 7200, int)
        len(a) == 3 or die("usage: twinload.py submit JOBS.tsv LOG [--deadline S]")
        sys.exit(submit(a[1], a[2], dl))
    elif a[:1] == ["probe"] and len(a) == 3:
        probe(int(a[1]), a[2], 1)
    elif a[:1] == ["phase"] and len(a) == 3:
        phase(a[1], a[2])
    elif a[:1] == ["facts"] and len(a) >= 2:
        import twinfacts
        twinfacts.facts(a[1:])
    elif a[:1] == ["summary"] and len(a) == 2:
        import twinfacts
        sys.exit(twinfacts.summary(a[1]))
    else:
        die("usage: twinload.py gen|submit|phase|facts|summary ... (see its docstring)")
