#!/usr/bin/env python3
"""bench/forecast_slurm.py — the driver of bench/forecast-slurm.sh.

  forecast_slurm.py submit N SEED RUN_MIN RUN_MAX SPAN_S LOG
      N jobs, as real users give them: run times log-uniform in
      [RUN_MIN, RUN_MAX] s, limits in whole minutes of 2x-10x the run time,
      1-3 cores (--mem=100), submitted by sbatch over SPAN_S seconds (a
      Poisson process); then waits until every one has ended. LOG gets
      "jobid run_s limit_min cores submit_unix" per job.
  forecast_slurm.py score SHADOW_DB SACCT EVERY_S
      For every job, its first forecast (at its submission: the first poll
      that saw it) and one every EVERY_S seconds after while it waited:
      hetlab's p50 and squeue --start's estimate, against the actual start
      from sacct (JobIDRaw|Start, Unix seconds). Prints the table and, as
      its last line:
      forecast: N jobs, hetlab median abs error H s, squeue --start S s, p10-p90 coverage C %
"""
import math, random, sqlite3, statistics, subprocess, sys, time


def submit(n, seed, rmin, rmax, span, log):
    rnd = random.Random(seed)
    jobs = []
    t = 0.0
    for _ in range(n):
        run = math.exp(rnd.uniform(math.log(rmin), math.log(rmax)))
        lim = max(1, math.ceil(run * rnd.uniform(2, 10) / 60))
        cores = rnd.choice([1, 1, 2, 2, 3])
        jobs.append((t, run, lim, cores))
        t += rnd.expovariate(n / span)
    t0 = time.time()
    ids = []
    with open(log, "w") as out:
        for at, run, lim, cores in jobs:
            d = t0 + at - time.time()
            if d > 0:
                time.sleep(d)
            r = subprocess.run(["sbatch", "--parsable", "-N1", "-n1", "-c", str(cores), "--mem=100",
                                "--time=%d" % lim, "-o", "/dev/null", "-J", "fc", "--wrap", "sleep %.1f" % run],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode:
                sys.exit("sbatch failed: " + r.stderr.strip())
            jid = r.stdout.strip().split(";")[0]
            ids.append(jid)
            print(jid, "%.1f" % run, lim, cores, int(time.time()), file=out, flush=True)
    while True:
        r = subprocess.run(["squeue", "-h", "-n", "fc", "-o", "%i"], stdout=subprocess.PIPE, text=True)
        if r.returncode == 0 and not r.stdout.strip():
            break
        time.sleep(2)
    print("submitted %d jobs over %.0f s; all ended %.0f s after the first" % (n, jobs[-1][0], time.time() - t0))


def score(dbpath, sacct, every):
    start = {}
    for line in open(sacct):
        f = line.strip().split("|")
        if len(f) >= 2 and f[1].isdigit():
            start[int(f[0])] = int(f[1])
    db = sqlite3.connect(dbpath)
    rows = db.execute("SELECT job, t, p10, p50, p90, squeue FROM forecast ORDER BY job, t").fetchall()
    picks = {}
    for job, t, p10, p50, p90, sq in rows:
        if job not in start:
            continue
        p = picks.setdefault(job, [])
        if not p or t >= p[-1][0] + every:
            p.append((t, p10, p50, p90, sq))
    eh, es, cov, n = [], [], 0, 0
    for job, p in picks.items():
        s = start[job]
        for t, p10, p50, p90, sq in p:
            n += 1
            eh.append(abs(p50 - s) if p50 is not None else float("inf"))
            if sq is not None:
                es.append(abs(sq - s))
            cov += p10 is not None and p10 - 1 <= s and (p90 is None or s <= p90 + 1)
    if not n:
        sys.exit("score: no forecast of a job with a known start")
    waits = [start[j] - p[0][0] for j, p in picks.items()]
    print("%d forecasts of %d jobs (wait after the first forecast: median %.0f s, max %.0f s); "
          "squeue --start gave an estimate in %d" % (n, len(picks), statistics.median(waits), max(waits), len(es)))
    print("forecast: %d jobs, hetlab median abs error %.1f s, squeue --start %.1f s, p10-p90 coverage %.0f %%"
          % (len(picks), statistics.median(eh), statistics.median(es) if es else float("nan"), 100.0 * cov / n))


if __name__ == "__main__":
    a = sys.argv
    if len(a) == 8 and a[1] == "submit":
        submit(int(a[2]), int(a[3]), float(a[4]), float(a[5]), float(a[6]), a[7])
    elif len(a) == 5 and a[1] == "score":
        score(a[2], a[3], float(a[4]))
    else:
        sys.exit(__doc__)
