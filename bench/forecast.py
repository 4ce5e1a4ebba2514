"""bench/forecast.py HETLAB LIVE.json STATE.db — the driver of
bench/forecast.sh: submits the workload on its schedule, polls `hetlab
forecast --json`, and scores the forecasts against the actual starts."""
import json, os, random, sqlite3, statistics, subprocess, sys, time

hetlab, cfg, db = sys.argv[1:4]
N = int(os.environ.get("BENCH_FORECAST_JOBS", "300"))
POLL = float(os.environ.get("BENCH_FORECAST_POLL_S", "3"))
ARRIVE_S = 45.0 * N / 300
rnd = random.Random(int(os.environ.get("BENCH_FORECAST_SEED", "1")))

# Three users: (run time range in s, time limit in whole minutes).
USERS = [((1.0, 5.0), 60), ((3.0, 9.0), 120), ((0.5, 3.0), 60)]
jobs, t = [], 0.0
for k in range(N):
    t += rnd.expovariate(N / ARRIVE_S)
    u = rnd.randrange(3)
    (lo, hi), lim = USERS[u]
    cores = rnd.choices([1, 2, 4], [0.5, 0.3, 0.2])[0]
    run = round(rnd.uniform(lo, hi), 2)
    line = {"class": "batch", "tenant": u, "walltime_us": lim * 1000000,
            "req": {"nodes": 1, "cores": cores}, "argv": ["sleep", str(run)]}
    jobs.append((t, json.dumps(line)))

def forecast():
    r = subprocess.run([hetlab, "forecast", "--config", cfg, "--json"], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else None

samples = {}        # (job, forecast time) -> (p10, p50, p90, limit)
last_poll = {}      # job -> forecast time of its last sample
start = time.time()
nxt = 0
while True:
    now = time.time() - start
    due = []
    while nxt < N and jobs[nxt][0] <= now:
        due.append(jobs[nxt][1])
        nxt += 1
    if due:
        subprocess.run([hetlab, "submit", "--config", cfg, "-"], input="\n".join(due) + "\n",
                       capture_output=True, text=True, check=True)
    fc = forecast()
    if fc:
        for r in fc["jobs"]:
            if r["p50"] is None or r["limit"] is None:
                continue
            # at its first forecast, then every POLL s while it waits
            if r["id"] in last_poll and fc["at"] - last_poll[r["id"]] < POLL:
                continue
            last_poll[r["id"]] = fc["at"]
            samples[(r["id"], fc["at"])] = (r["p10"], r["p50"], r["p90"], r["limit"])
    if nxt >= N:
        con = sqlite3.connect(db)
        left = con.execute("SELECT count(*) FROM jobs WHERE start_us < 0 OR start_us IS NULL").fetchone()[0]
        taken = con.execute("SELECT count(*) FROM jobs").fetchone()[0]
        con.close()
        if taken >= N and left == 0:
            break
    if time.time() - start > 800:
        sys.exit("bench/forecast.py: the jobs did not all start within 800 s")
    time.sleep(0.25)

con = sqlite3.connect(db)
epoch = int(con.execute("SELECT value FROM meta WHERE key = 'epoch_unix_us'").fetchone()[0])
actual = {i: (s + epoch) / 1e6 for i, s in con.execute("SELECT id, start_us FROM jobs WHERE start_us >= 0")}
con.close()
eh, el, cover = [], [], 0
for (job, at), (p10, p50, p90, lim) in samples.items():
    a = actual[job]
    eh.append(abs(p50 - a))
    el.append(abs(lim - a))
    cover += p10 - 0.5 <= a <= p90 + 0.5    # the executor's clock counts whole seconds
njobs = len({j for j, _ in samples})
h, s = statistics.median(eh), statistics.median(el)
c = 100.0 * cover / len(samples)
out = (f"{len(samples)} forecasts of {njobs} waiting jobs (of {N}); waits: median "
       f"{statistics.median([actual[j] - at for j, at in samples]):.1f} s\n"
       f"forecast: {njobs} jobs, hetlab median abs error {h:.1f} s, limit-based {s:.1f} s, "
       f"p10-p90 coverage {c:.0f} %\n")
sys.stdout.write(out)
open("result.txt", "w").write(out)
