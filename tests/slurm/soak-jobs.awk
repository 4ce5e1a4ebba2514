# soak-jobs.awk — the job lines of one wave of tests/slurm/soak.sh, drawn
# from a seed of its own (the wave's first index), so every soak submits
# the same jobs:
#
#   awk -v first=N -v count=K -v out=DIR [-v inference=1|quota=1|second=1] -f soak-jobs.awk
#
# Jobs sN .. s(N+K-1). Without inference=1, the offline mix: batch (1-2
# cores), dev, single-node training on both GPUs of a node, training gangs
# of 2-4 nodes (a gang stays in one rack, so in one Slurm partition), and,
# with quota=1, jobs of tenant t2 (over its quota until approved). With
# inference=1, inference jobs on one GPU, which preempt training; with
# second=1, 1 s batch jobs on the nodes of rack r2 (partition second). Each
# job logs "run ATTEMPT SLURM_JOB_ID" at each run, "ckpt ATTEMPT" when
# it checkpoints on SIGUSR1 (and exits 0), and "end ATTEMPT" when its 1-5 s
# of work are done, to DIR/sN.
function line(i, cls, tenant, nodes, cores, gpus, tenths, wall, req) {
	printf "{\"name\": \"s%d\", \"class\": \"%s\", \"tenant\": %d, \"walltime_us\": %d000000, ", i, cls, tenant, wall
	printf "\"req\": {\"nodes\": %d, \"cores\": %d, \"gpus\": %d, \"mem_mib\": 300%s}, ", nodes, cores, gpus, req
	printf "\"argv\": [\"sh\", \"-c\", \"%s\", \"job\", \"s%d\", \"%d\"]}\n", script, i, tenths
}
BEGIN {
	srand(first + 1)
	script = "o=" out "/$1; echo run $HETLAB_ATTEMPT $SLURM_JOB_ID >> $o; " \
	         "trap 'echo ckpt $HETLAB_ATTEMPT >> $o; exit 0' USR1; " \
	         "i=0; while [ $i -lt $2 ]; do sleep 0.1; i=$((i+1)); done; echo end $HETLAB_ATTEMPT >> $o"
	for (i = first; i < first + count; i++) {
		r = rand()
		t = int(rand() * 2)
		if (inference)
			line(i, "inference", t, 1, 1, 1, 10 + int(rand() * 11), 120, "")
		else if (second)
			line(i, "batch", t, 1, 1, 0, 10, 120, ", \"require\": \"rack = r2\"")
		else if (quota && r < 0.07)
			line(i, "batch", 2, 1, 1, 0, 10 + int(rand() * 21), 600, "")
		else if (r < 0.27)
			line(i, "training", t, 1, 1, 2, 20 + int(rand() * 21), 300, "")
		else if (r < 0.35) {
			n = 2 + int(rand() * 3)
			rack = n > 2 || rand() < 0.5 ? "r1" : "r2"
			line(i, "training", t, n, 1, 2, 20 + int(rand() * 21), 300, ", \"require\": \"rack = " rack "\"")
		} else if (r < 0.47)
			line(i, "dev", t, 1, 1, 0, 10 + int(rand() * 21), 300, "")
		else
			line(i, "batch", t, 1, 1 + int(rand() * 2), 0, 10 + int(rand() * 41), 300, "")
	}
}
