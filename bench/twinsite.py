#!/usr/bin/env python3
"""twinsite.py — a synthetic Slurm site and a month of its history, for
the twin's speed benchmark (bench/twin-speed.sh).

  twinsite.py DIR [--kind national|campus] [--nodes N] [--days D]
                  [--load X] [--seed S]

Writes DIR/slurm.conf, DIR/gres.conf, DIR/assoc.txt, DIR/qos.txt (sacctmgr
-P dumps) and DIR/site.sacct (a sacct -D -X -P dump). Two kinds of site,
N nodes each (default 1,000), priority/multifactor with fair share, age
and size, sched/backfill with Slurm's defaults (bf_interval 30,
bf_max_job_test 500, bf_window one day), AccountingStorageEnforce with
limits, QOS normal, high (priority 100, at most a quarter of the
cluster's CPUs a user) and low, 20 accounts of 10 users with unequal
shares:

national (the default): a national centre's capability machine, shaped
  on ARCHER2 (the system FastSim replays): 128-core nodes given whole
  (jobs ask for nodes: 45 % one node, the rest 2 to 128, at most an
  eighth of the machine), partition
  standard (24 hours) and a short one (PriorityTier 2, 32 nodes, 20
  minutes), run times lognormal (median one hour), about 27,000 jobs a
  month per 1,000 nodes at the default load 0.9 (ARCHER2: about 600,000
  jobs in four months on 5,860 nodes, 26,000 a month per 1,000 nodes).
campus: a university cluster of many small jobs: 64-core nodes, a tenth
  with four A100s, cores and memory shared (CR_Core_Memory), partitions
  cpu, gpu and debug (PriorityTier 2, 16 nodes, one hour); 80 % of jobs
  on one node with 1 to 64 cores, run times lognormal (median 40
  minutes); about 9,000 jobs a day per 1,000 nodes at load 0.9.

Jobs arrive as a Poisson process with a daily cycle (twice the mean rate
at 14:00, half at 02:00) at the rate that offers load X of the cluster;
users' time limits are 1.5 to 10 times the run time, in whole minutes.
The dump's Start and End only give each job's run time (the twin decides
the starts). Deterministic for a seed. Python 3 of Debian, standard
library only.
"""
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone

USAGE = "usage: twinsite.py DIR [--kind national|campus] [--nodes N] [--days D] [--load X] [--seed S]"

HEAD = ("JobID|JobIDRaw|JobName|Partition|Account|QOS|User|State|ExitCode|Submit|Eligible|Start|End|"
        "Elapsed|Timelimit|NNodes|NCPUS|ReqCPUS|ReqMem|ReqTRES|AllocTRES")

COMMON = """SchedulerType=sched/backfill
SelectType=select/cons_tres
PriorityType=priority/multifactor
PriorityWeightFairshare=10000
PriorityWeightAge=1000
PriorityWeightJobSize=500
PriorityWeightQOS=2000
PriorityMaxAge=7-0
PriorityDecayHalfLife=7-0
AccountingStorageEnforce=associations,limits,qos
"""


def national(n):
    conf = f"""ClusterName=national
SlurmctldHost=head
{COMMON}SelectTypeParameters=CR_Core_Memory
DefMemPerNode=250000
NodeName=nid[{1:06d}-{n:06d}] CPUs=128 RealMemory=256000 State=UNKNOWN
PartitionName=standard Nodes=nid[{1:06d}-{n:06d}] Default=YES MaxTime=1-0 PriorityTier=1 State=UP
PartitionName=short Nodes=nid[{1:06d}-{min(n, 32):06d}] MaxTime=20 PriorityTier=2 State=UP
"""
    # job sizes up to an eighth of the machine (128 nodes of 1,000)
    sizes, size_w = zip(*[(s, w) for s, w in zip([1, 2, 4, 8, 16, 32, 64, 128], [45, 12, 12, 10, 8, 6, 4, 3])
                          if s <= max(1, round(0.128 * n))])
    mean_nodes = sum(s * w for s, w in zip(sizes, size_w)) / sum(size_w)
    median_run = 3600
    sigma = 1.2

    def job(rng):
        nodes = rng.choices(sizes, size_w)[0]
        run = min(max(int(rng.lognormvariate(math.log(median_run), sigma)), 30), 86400 - 60)
        limit = min(max(math.ceil(run * rng.uniform(1.5, 10) / 60), 1), 1440)
        part = "standard"
        if run < 1000 and nodes <= 32 and rng.random() < 0.3:
            part, limit = "short", min(limit, 20)
            run = min(run, 60 * limit)
        cpus = 128 * nodes
        tres = "cpu=%d,mem=%dM,node=%d,billing=%d" % (cpus, 250000 * nodes, nodes, cpus)
        return part, nodes, cpus, "%dM" % (250000 * nodes), tres, run, limit

    mean_run = median_run * math.exp(sigma ** 2 / 2)
    return conf, "", job, n / (mean_nodes * mean_run)


def campus(n):
    ngpu = max(n // 10, 2)
    ncpu = n - ngpu
    conf = f"""ClusterName=campus
SlurmctldHost=head
{COMMON}SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=2000
GresTypes=gpu
NodeName=c[0001-{ncpu:04d}] CPUs=64 RealMemory=256000 State=UNKNOWN
NodeName=g[001-{ngpu:03d}] CPUs=64 RealMemory=512000 Gres=gpu:a100:4 State=UNKNOWN
PartitionName=cpu Nodes=c[0001-{ncpu:04d}] Default=YES MaxTime=2-0 PriorityTier=1 State=UP
PartitionName=gpu Nodes=g[001-{ngpu:03d}] MaxTime=2-0 PriorityTier=1 State=UP
PartitionName=debug Nodes=c[0001-0016] MaxTime=60 PriorityTier=2 State=UP
"""
    gres = f"NodeName=g[001-{ngpu:03d}] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
    median_run, sigma = 2400, 1.3

    def job(rng):
        gpu = rng.random() < 0.12
        run = min(max(int(rng.lognormvariate(math.log(median_run), sigma)), 30), 2 * 86400 - 60)
        limit = min(max(math.ceil(run * rng.uniform(1.5, 10) / 60), 1), 2880)
        if gpu:
            part = "gpu"
            nodes = 1 if rng.random() < 0.8 else rng.choice([2, 2, 4, 8])
            g = rng.choice([1, 2, 4]) if nodes == 1 else 4
            cpn = 16 * g
            tres = "cpu=%d,mem=%dM,node=%d,billing=%d,gres/gpu=%d,gres/gpu:a100=%d" % (
                cpn * nodes, 8000 * cpn * nodes, nodes, cpn * nodes, g * nodes, g * nodes)
            mem = 8000 * cpn * nodes
        else:
            part = "debug" if run < 3000 and rng.random() < 0.1 else "cpu"
            nodes = 1 if rng.random() < 0.8 else rng.choice([2, 2, 4, 8, 16])
            cpn = rng.choice([1, 2, 4, 8, 16, 32, 64]) if nodes == 1 else 64
            tres = "cpu=%d,mem=%dM,node=%d,billing=%d" % (cpn * nodes, 2000 * cpn * nodes, nodes, cpn * nodes)
            mem = 2000 * cpn * nodes
        if part == "debug":
            limit = min(limit, 60)
            run = min(run, 60 * limit)
        return part, nodes, cpn * nodes, "%dM" % mem, tres, run, limit

    # the mean cores of a job as drawn above, over the cluster's cores
    cpu_job = 0.8 * sum([1, 2, 4, 8, 16, 32, 64]) / 7 + 0.2 * 64 * sum([2, 2, 4, 8, 16]) / 5
    gpu_job = 0.8 * 16 * sum([1, 2, 4]) / 3 + 0.2 * 64 * sum([2, 2, 4, 8]) / 4
    mean_share = (0.88 * cpu_job + 0.12 * gpu_job) / 64
    mean_run = median_run * math.exp(sigma ** 2 / 2)
    return conf, gres, job, n / (mean_share * mean_run)


def main():
    args = sys.argv[1:]
    opt = {"--kind": "national", "--nodes": 1000, "--days": 30.0, "--load": 0.9, "--seed": 1}
    out = None
    while args:
        a = args.pop(0)
        if a in opt:
            if not args:
                sys.exit("twinsite: %s needs a value" % a)
            opt[a] = type(opt[a])(args.pop(0))
        elif a.startswith("-") or out:
            sys.exit(USAGE)
        else:
            out = a
    if not out or opt["--kind"] not in ("national", "campus") or opt["--nodes"] < 40:
        sys.exit(USAGE + " (at least 40 nodes)")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(opt["--seed"])
    n = opt["--nodes"]
    conf, gres, job, node_rate = (national if opt["--kind"] == "national" else campus)(n)
    w = lambda name, text: open(os.path.join(out, name), "w").write(text)
    w("slurm.conf", conf)
    if gres:
        w("gres.conf", gres)
    # QOS high: at most a quarter of the cluster's CPUs a user at a time
    high_cpus = (128 if opt["--kind"] == "national" else 64) * n // 4
    w("qos.txt", "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageFactor|GrpTRES|GrpJobs|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRES|MaxWall\n"
      "normal|10|00:00:00|||||1.000000||||||||\n"
      "high|100|00:00:00|||||2.000000|||cpu=%d|||||\n" % high_cpus +
      "low|0|00:00:00|||||0.500000||||||||\n")
    accounts = ["acct%02d" % i for i in range(20)]
    users = {a: ["u%02d%d" % (i, k) for k in range(10)] for i, a in enumerate(accounts)}
    cols = ["Cluster", "Account", "User", "Partition", "Share", "Priority", "GrpJobs", "GrpTRES", "GrpSubmit",
            "MaxJobs", "MaxTRES", "MaxSubmit", "MaxWall", "ParentName", "QOS", "DefaultQOS"]
    row = lambda **kv: "|".join(str(kv.get(c, "")) for c in cols)
    cluster = "national" if opt["--kind"] == "national" else "campus"
    rows = ["|".join(cols), row(Cluster=cluster, Account="root", Share=1, QOS="normal")]
    for i, a in enumerate(accounts):
        rows.append(row(Cluster=cluster, Account=a, Share=1 + i % 5, ParentName="root",
                        QOS="high,low,normal", DefaultQOS="normal"))
        for u in users[a]:
            rows.append(row(Cluster=cluster, Account=a, User=u, Share=1, QOS="high,low,normal",
                            DefaultQOS="normal"))
    w("assoc.txt", "\n".join(rows) + "\n")
    span = opt["--days"] * 86400
    rate = opt["--load"] * node_rate
    base = datetime(2026, 11, 1, tzinfo=timezone.utc)
    lines = [HEAD]
    t, jid = 0.0, 1000
    weights = [1 + (i % 7) ** 2 for i in range(len(accounts))]
    fmt = lambda s: (base + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S")
    dur = lambda s: ("%d-" % (s // 86400) if s >= 86400 else "") + "%02d:%02d:%02d" % (s % 86400 // 3600, s % 3600 // 60, s % 60)
    while True:
        hour = (t / 3600) % 24
        lam = rate * (1 + 0.6 * math.cos(2 * math.pi * (hour - 14) / 24))
        t += rng.expovariate(lam)
        if t >= span:
            break
        jid += 1
        a = rng.choices(accounts, weights)[0]
        u = rng.choice(users[a])
        qos = rng.choices(["normal", "high", "low"], [0.8, 0.08, 0.12])[0]
        part, nodes, cpus, mem, tres, run, limit = job(rng)
        sub = int(t)
        lines.append("|".join([str(jid), str(jid), "job%d" % jid, part, a, qos, u, "COMPLETED", "0:0",
                               fmt(sub), fmt(sub), fmt(sub), fmt(sub + run), dur(run), dur(60 * limit),
                               str(nodes), str(cpus), str(cpus), mem, tres, tres]))
    w("site.sacct", "\n".join(lines) + "\n")
    print("twinsite: %s site of %d nodes, %d jobs over %g days, offered load %.2f -> %s"
          % (opt["--kind"], n, jid - 1000, opt["--days"], opt["--load"], out))


if __name__ == "__main__":
    main()
