#!/bin/sh
# `hetlab shadow` beside a fake Slurm (docs/forecast.md "The shadow"): the
# fake squeue, sinfo and sacct on PATH print what the test leaves in
# $T/squeue.out, $T/sinfo.out, $T/sacct.out; sbatch, scontrol, scancel,
# srun and sacctmgr fail loudly and leave a trace in $T/WROTE, so that any
# call of them fails the test. Two nodes of 4 CPUs; six finished jobs teach
# the predictor that jobs take a twentieth of their limits; two jobs run,
# two wait behind them. The shadow forecasts both far before the
# limit-based start squeue --start gives, records the forecasts, then (a
# second shadow on the same directory) the actual starts: one from squeue,
# one from sacct (a job that started and ended between two polls); the
# report prints the accuracy table and its one-line summary; /metrics
# serves the forecasts. Bad input: squeue output that does not parse, a job
# on a node slurm.conf does not name, a failing squeue, an unreadable
# slurm.conf, usage errors.
#
# usage: tests/shadow/run.sh HETLAB
set -u
HETLAB=$1
case $HETLAB in /*) ;; *) HETLAB=$(pwd)/$HETLAB ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hetlab-shadow-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   shadow: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL shadow: $1"; [ $# -gt 1 ] && printf '     %s\n' "$2"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', expected '$3'"; fi; }
q() { sqlite3 -batch -noheader "$1" "$2"; }
command -v sqlite3 >/dev/null || { echo "shadow tests need the sqlite3 program"; exit 1; }

mkdir "$T/bin"
for c in squeue sinfo sacct; do
	cat >"$T/bin/$c" <<EOS
#!/bin/sh
echo "\$*" >>"$T/$c.args"
[ -f "$T/$c.rc" ] && { echo "$c: error: Unable to contact slurm controller (connect failure)" >&2; exit 1; }
cat "$T/$c.out" 2>/dev/null
EOS
done
for c in sbatch scontrol scancel srun sacctmgr; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/WROTE"\necho "%s: the shadow must never run this" >&2\nexit 99\n' \
		"$c" "$T" "$c" >"$T/bin/$c"
done
chmod +x "$T/bin/"*
export PATH="$T/bin:$PATH"

cat >"$T/slurm.conf" <<'EOC'
ClusterName=fake
SlurmctldHost=localhost
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerParameters=batch_sched_delay=0,bf_interval=1
NodeName=n[1-2] CPUs=4 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP
EOC

node() { # NAME STATE
	printf '{"name":"%s","state":"%s","state_flags":[],"cpus":4,"real_memory":4000,"alloc_cpus":4,"alloc_memory":0,"gres":"","gres_used":"","partitions":["debug"],"reason":"","slurmd_version":"22.05.8"}' "$1" "$2"
}
printf '{"meta":{},"errors":[],"nodes":[%s,%s]}\n' "$(node n1 allocated)" "$(node n2 allocated)" >"$T/sinfo.out"

NOW=$(date +%s)
# squeue -O of the full format: ID STATE EXIT RESTARTS PRIO START END USER PART NAME COMMENT NODES SUBMIT LIMIT
# NNODES NCPUS MEM TRES ACCOUNT QOS PRIOLONG ARRAYJOB ARRAYTASK REASON
job() { # ID STATE START END NODES SUBMIT PRIO REASON [ARRAYJOB ARRAYTASK]
	printf '%s|%s|0|0|0.0001|%s|%s|alice|debug|j%s|(null)|%s|%s|10:00|1|4|100M|N/A|acct|normal|%s|%s|%s|%s|\n' \
		"$1" "$2" "$3" "$4" "$1" "$5" "$6" "$7" "${9:-N/A}" "${10:-N/A}" "$8"
}
{
	for i in 1 2 3 4 5 6; do
		job "$i" COMPLETED $((NOW - 400 + 40 * i)) $((NOW - 370 + 40 * i)) n1 $((NOW - 500)) 1 None
	done
	job 10 RUNNING $((NOW - 20)) $((NOW + 580)) n1 $((NOW - 30)) 1 None
	job 11 RUNNING $((NOW - 10)) $((NOW + 590)) n2 $((NOW - 30)) 1 None
	job 12 PENDING $((NOW + 580)) N/A "" $((NOW - 5)) 100 Resources
	job 13 PENDING $((NOW + 590)) N/A "" $((NOW - 4)) 90 Priority
	job 20 CANCELLED $((NOW - 100)) $((NOW - 100)) "" $((NOW - 300)) 1 None
} >"$T/squeue.out"

cd "$T" || exit 1
"$HETLAB" shadow --slurm-conf slurm.conf --state st --polls 1 --draws 10 2>log1
check_eq "a poll runs and exits 0" "$?" 0
check_eq "the log names the poll's jobs" "$(grep -c 'poll 1: 2 running, 2 waiting' log1)" 1
check_eq "squeue is asked for every job of every user, in the full format" \
	"$(grep -c -- '-h -a -t all -O JobID:|.*SubmitTime:|,TimeLimit:|' squeue.args)" 1
check_eq "sinfo is asked for the nodes" "$(cat sinfo.args)" "--json"
check_eq "each waiting job has a forecast" "$(q st/shadow.db 'SELECT group_concat(job) FROM forecast')" "12,13"
p50=$(q st/shadow.db "SELECT CAST(p50 - t AS INT) FROM forecast WHERE job = 12")
lim=$(q st/shadow.db "SELECT CAST(lim - t AS INT) FROM forecast WHERE job = 12")
check_eq "the learned p50 is far before the limit-based start (job 12: $p50 s, limit $lim s)" \
	"$([ "$p50" -lt 120 ] && [ "$lim" -gt 500 ] && echo yes)" yes
check_eq "p10 <= p50 <= p90 (job 13)" "$(q st/shadow.db 'SELECT p10 <= p50 AND p50 <= p90 FROM forecast WHERE job = 13')" 1
check_eq "what squeue --start said is recorded beside" \
	"$(q st/shadow.db "SELECT CAST(squeue AS INT) FROM forecast WHERE job = 12")" $((NOW + 580))
check_eq "the finished jobs' starts are recorded" "$(q st/shadow.db 'SELECT count(*) FROM job WHERE start IS NOT NULL AND end IS NOT NULL')" 6
check_eq "a job cancelled while it waited has no start" "$(q st/shadow.db 'SELECT count(*) FROM job WHERE id = 20 AND start IS NULL')" 1

# Job 12 started; job 13 started and ended between two polls: sacct has it.
{
	job 10 RUNNING $((NOW - 20)) $((NOW + 580)) n1 $((NOW - 30)) 1 None
	job 11 RUNNING $((NOW - 10)) $((NOW + 590)) n2 $((NOW - 30)) 1 None
	job 12 RUNNING $((NOW + 25)) $((NOW + 625)) n1 $((NOW - 5)) 100 None
} >"$T/squeue.out"
printf '13|j13|COMPLETED|0:0|%s|%s|n2|cpu=4,mem=100M,node=1\n' $((NOW + 30)) $((NOW + 32)) >"$T/sacct.out"
"$HETLAB" shadow --slurm-conf slurm.conf --state st --polls 2 --every 0.2 --metrics-port 0 2>log2 &
SH=$!
url=
for i in $(seq 1 100); do
	url=$(sed -n 's/.*metrics on \(http[^ ]*\).*/\1/p' log2)
	[ -n "$url" ] && grep -q 'poll 1:' log2 && break
	sleep 0.05
done
if command -v curl >/dev/null && [ -n "$url" ]; then
	curl -s "$url" >metrics.txt
	check_eq "/metrics has the accuracy and the polls" \
		"$(grep -c -e '^hetlab_shadow_coverage{wait="all"}' -e '^hetlab_shadow_polls_total{ok="1"} [12]$' metrics.txt)" 2
fi
wait "$SH"
check_eq "the second shadow exits 0" "$?" 0
check_eq "sacct is asked for the job Slurm forgot" "$(grep -c -- '-j 13' sacct.args)" 1
check_eq "the start squeue showed is recorded" "$(q st/shadow.db "SELECT CAST(start AS INT), start_from FROM job WHERE id = 12")" "$((NOW + 25))|squeue"
check_eq "the start sacct kept is recorded" "$(q st/shadow.db "SELECT CAST(start AS INT), start_from FROM job WHERE id = 13")" "$((NOW + 30))|sacct"
"$HETLAB" shadow report st/shadow.db >report.txt
check_eq "shadow report exits 0" "$?" 0
check_eq "the report has a row per wait length" \
	"$(grep -c -e '^<1 min ' -e '^1-10 min ' -e '^10-60 min ' -e '^>1 h ' -e '^all ' report.txt)" 5
check_eq "the report ends with the summary line" "$(tail -1 report.txt | grep -Ec \
	'^forecast: [0-9]+ jobs, hetlab median abs error [0-9.]+ s, squeue --start [0-9.]+ s, p10-p90 coverage [0-9]+ %$')" 1
check_eq "the summary counts both jobs" "$(tail -1 report.txt | cut -d' ' -f2)" 2
check_eq "the accuracy is a table of the results" "$(q st/shadow.db "SELECT forecasts, jobs FROM accuracy WHERE bin = 'all'")" "2|2"
check_eq "hetlab's p50 is closer to the actual starts than squeue --start" \
	"$(q st/shadow.db "SELECT hetlab_mae_s < squeue_mae_s FROM accuracy WHERE bin = 'all'")" 1

# ---- a job array (squeue -r: a line per task) ----
# As the real squeue prints one (Slurm 22.05.8): the tasks not started
# share the array's id (30); a task that starts gets its own (31), the
# array's and task's ids staying. The shadow knows a task by its array
# and task, so that task 1's forecasts and its start are one job's.
{
	job 10 RUNNING $((NOW - 20)) $((NOW + 580)) n1 $((NOW - 30)) 1 None
	job 11 RUNNING $((NOW - 10)) $((NOW + 590)) n2 $((NOW - 30)) 1 None
	job 30 PENDING $((NOW + 580)) N/A "" $((NOW - 5)) 100 Resources 30 1
	job 30 PENDING $((NOW + 590)) N/A "" $((NOW - 5)) 100 Priority 30 2
} >"$T/squeue.out"
"$HETLAB" shadow --slurm-conf slurm.conf --state st-arr --polls 1 --draws 10 2>log-arr1
check_eq "array: each pending task has its forecast, by its array and task" \
	"$?,$(q st-arr/shadow.db "SELECT group_concat(slurm_id) FROM (SELECT j.slurm_id FROM forecast f JOIN job j ON j.id = f.job ORDER BY j.slurm_id)")" \
	"0,30_1,30_2"
{
	job 10 RUNNING $((NOW - 20)) $((NOW + 580)) n1 $((NOW - 30)) 1 None
	job 31 RUNNING $((NOW + 20)) $((NOW + 620)) n2 $((NOW - 5)) 100 None 30 1
	job 30 PENDING $((NOW + 600)) N/A "" $((NOW - 5)) 100 Resources 30 2
} >"$T/squeue.out"
"$HETLAB" shadow --slurm-conf slurm.conf --state st-arr --polls 1 --draws 10 2>log-arr2
check_eq "array: the task's start is its own job's (not a job 31), the other task still waits" \
	"$?,$(q st-arr/shadow.db "SELECT CAST(start AS INT) FROM job WHERE slurm_id = '30_1'"),$(q st-arr/shadow.db "SELECT count(*) FROM job WHERE id = 31 OR slurm_id = '31'"),$(q st-arr/shadow.db "SELECT count(*) FROM forecast f JOIN job j ON j.id = f.job WHERE j.slurm_id = '30_2'")" \
	"0,$((NOW + 20)),0,2"
check_eq "array: squeue is asked a line per task (-r), every time" \
	"$(grep -c -- '-O JobID:|.* -r$' squeue.args | awk '{ print ($1 > 0) }'),$(grep -v -c -- ' -r$' squeue.args)" "1,0"

# ---- bad input: said, retried, nothing recorded ----
nf=$(q st/shadow.db 'SELECT count(*) FROM forecast')
echo 'this is not squeue output' >squeue.out
"$HETLAB" shadow --slurm-conf slurm.conf --state st --polls 1 2>log3
check_eq "a poll whose squeue does not parse fails, said and not fatal" "$?:$(grep -c 'poll 1 failed (nothing recorded; tried again in 30 s): squeue: line 1: expected 24' log3)" "0:1"
job 14 RUNNING $((NOW - 20)) $((NOW + 580)) n9 $((NOW - 30)) 1 None >squeue.out
"$HETLAB" shadow --slurm-conf slurm.conf --state st --polls 1 2>log4
check_eq "a job on a node slurm.conf does not name is named" \
	"$(grep -c 'poll 1 failed.*squeue: job 14 runs on node n9, which slurm.conf does not name' log4)" 1
touch squeue.rc
"$HETLAB" shadow --slurm-conf slurm.conf --state st --polls 1 2>log5
check_eq "a squeue that fails is said" "$(grep -c 'poll 1 failed.*Unable to contact slurm controller' log5)" 1
rm squeue.rc
check_eq "failed polls are recorded as failed, with nothing else" \
	"$(q st/shadow.db 'SELECT count(*) FROM poll WHERE ok = 0'):$(q st/shadow.db 'SELECT count(*) FROM forecast'):$(q st/shadow.db 'SELECT count(*) FROM job WHERE id = 14')" "3:$nf:0"
"$HETLAB" shadow --slurm-conf missing.conf --state st2 --polls 1 2>log6
check_eq "an unreadable slurm.conf: exit 1, named" "$?:$(grep -c 'missing.conf' log6)" "1:1"
"$HETLAB" shadow --state st --polls 1 2>/dev/null
check_eq "no --slurm-conf: a usage error" "$?" 2
"$HETLAB" shadow --slurm-conf slurm.conf --every x 2>/dev/null
check_eq "a bad --every: a usage error" "$?" 2
"$HETLAB" shadow report 2>/dev/null
check_eq "report without a file: a usage error" "$?" 2
"$HETLAB" shadow report log1 2>err7
check_eq "report of a file that is not the shadow's: exit 1, named" "$?:$(grep -c 'log1' err7)" "1:1"
check_eq "no command that writes to Slurm ever ran" "$(cat WROTE 2>/dev/null)" ""

echo "shadow: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
