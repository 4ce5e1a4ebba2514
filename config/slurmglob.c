/* slurmglob — slurm.conf's global keys: one row a key, saying whether the
 * twin models it (a policy parameter of /work/notes/slurm-params.md or a
 * field of struct slurm_cfg), accepts it (no bearing on when jobs start)
 * or warns that it is not modelled. docs/slurm-twin.md is this table in
 * prose; keep the two together. */
#include "config/slurmconf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Keys accepted silently: paths, ports, logs, authentication, daemons'
 * plugins and timeouts, accounting, and submit-time rules whose outcome
 * the accounting dump already holds. */
static const char *const quiet[] = {
	"AccountingStorageBackupHost", "AccountingStorageExternalHost", "AccountingStorageHost",
	"AccountingStorageParameters", "AccountingStoragePass", "AccountingStoragePort",
	"AccountingStorageTRES", "AccountingStorageType", "AccountingStorageUser", "AccountingStoreFlags",
	"AcctGatherEnergyType", "AcctGatherFilesystemType", "AcctGatherInterconnectType",
	"AcctGatherNodeFreq", "AcctGatherProfileType", "AllowSpecResourcesUsage", "AuthAltParameters",
	"AuthAltTypes", "AuthType", "BackupAddr", "BackupController", "BatchStartTimeout", "BcastExclude",
	"BcastParameters", "CliFilterPlugins", "ClusterName", "CommunicationParameters", "ControlAddr",
	"ControlMachine", "CoreSpecPlugin", "CpuFreqDef", "CpuFreqGovernors", "CredType", "DebugFlags",
	"DependencyParameters", "DisableRootJobs", "EioTimeout", "EnforcePartLimits",
	"EpilogMsgTime", "EpilogSlurmctld", "ExtSensorsFreq", "ExtSensorsType", "FederationParameters",
	"FirstJobId", "GetEnvTimeout", "GresTypes", "GroupUpdateForce", "GroupUpdateTime",
	"HealthCheckInterval", "HealthCheckNodeState", "HealthCheckProgram", "InactiveLimit",
	"InteractiveStepOptions", "JobAcctGatherFrequency", "JobAcctGatherParams", "JobAcctGatherType",
	"JobCompHost", "JobCompLoc", "JobCompParams", "JobCompPass", "JobCompPort", "JobCompType",
	"JobCompUser", "JobContainerType", "JobFileAppend", "JobSubmitPlugins", "KeepPartInfo",
	"KeepPartState", "KillOnBadExit", "LaunchParameters", "LaunchType", "LogTimeFormat",
	"MailDomain", "MailProg", "MaxArraySize", "MaxDBDMsgs", "MaxJobCount", "MaxJobId", "MaxMemPerCPU",
	"MaxMemPerNode", "MaxNodeCount", "MaxStepCount", "MaxTasksPerNode", "MCSParameters", "MCSPlugin",
	"MinJobAge", "MpiDefault", "MpiParams", "PluginDir", "PlugStackConfig", "PrEpParameters",
	"PrEpPlugins", "PrivateData", "ProctrackType", "Prolog", "PrologEpilogTimeout", "PrologFlags",
	"PrologSlurmctld", "PropagatePrioProcess", "PropagateResourceLimits",
	"PropagateResourceLimitsExcept", "RebootProgram", "ReconfigFlags", "RequeueExit",
	"RequeueExitHold", "ResumeFailProgram", "ResumeProgram", "ResumeRate", "ResumeTimeout",
	"ResvEpilog", "ResvOverRun", "ResvProlog", "ReturnToService", "RoutePlugin", "SchedulerTimeSlice",
	"ScronParameters", "SlurmSchedLogFile", "SlurmSchedLogLevel", "SlurmUser", "SlurmctldAddr",
	"SlurmctldDebug", "SlurmctldHost", "SlurmctldLogFile", "SlurmctldParameters", "SlurmctldPidFile",
	"SlurmctldPlugstack", "SlurmctldPort", "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg",
	"SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmdDebug", "SlurmdLogFile", "SlurmdParameters",
	"SlurmdPidFile", "SlurmdPort", "SlurmdSpoolDir", "SlurmdSyslogDebug", "SlurmdTimeout",
	"SlurmdUser", "SrunEpilog", "SrunPortRange", "SrunProlog", "StateSaveLocation",
	"SuspendExcNodes", "SuspendExcParts", "SuspendProgram", "SuspendRate", "SuspendTimeout",
	"SwitchParameters", "SwitchType", "TaskEpilog", "TaskPlugin", "TaskPluginParam", "TaskProlog",
	"TCPTimeout", "TmpFS", "TrackWCKey", "TreeWidth", "UnkillableStepProgram",
	"UnkillableStepTimeout", "UsePAM", "VSizeFactor", "WaitTime", "X11Parameters",
	NULL,
};

/* Keys that change scheduling and are not modelled, unless they hold the
 * value given (their default, or one that changes nothing). */
static const struct sc_warned warned[] = {
	{ "PriorityWeightTRES", "", "is not modelled: the TRES factor of the priority is 0" },
	{ "PriorityParameters", "", "is not modelled" },
	{ "PrioritySiteFactorPlugin", "site_factor/none", "is not modelled: the site factor is 0" },
	{ "PrioritySiteFactorParameters", "", "is not modelled" },
	{ "TopologyPlugin", "topology/none", "is not modelled: nodes are chosen without switches" },
	{ "TopologyParam", "", "is not modelled" },
	{ "Licenses", "", "are not modelled: jobs never wait for a license" },
	{ "BurstBufferType", "burst_buffer/none", "is not modelled" },
	{ "NodeFeaturesPlugins", "", "is not modelled: node features never change" },
	{ "PreemptParameters", "", "is not modelled" },
	{ "CompleteWait", "0", "is not modelled: a pass does not wait for completing jobs" },
	{ "SuspendTime", "NONE", "(power saving) is not modelled: nodes never power down" },
	{ "DefMemPerGPU", "", "is not modelled: the dump's allocated memory is replayed" },
	{ "DefCpuPerGPU", "", "is not modelled: the dump's allocated CPUs are replayed" },
	{ "PowerParameters", "", "is not modelled" },
	{ "PowerPlugin", "", "is not modelled" },
	{ NULL, NULL, NULL },
};

/* A row of the modelled keys: a parameter from a number, a time or a word. */
enum kind { K_INT, K_TIME_S, K_TIME_MIN_S, K_FN };
struct row {
	const char *key;
	enum kind kind;
	const char *param;          /* K_INT, K_TIME_*: the parameter set */
	int64_t min, max;
	int (*fn)(const struct sc_at *a, const char *key, const char *val);
};

static int sched_type(const struct sc_at *a, const char *k, const char *v)
{
	if (!strcasecmp(v, "sched/backfill"))
		return sc_param(a, k, "backfill", 1);
	if (!strcasecmp(v, "sched/builtin"))
		return sc_param(a, k, "backfill", 0);
	return sc_bad(a, k, "sched/backfill or sched/builtin", v);
}

/* SchedulerParameters: the modelled options; the others warn. */
static const struct { const char *opt, *param; int64_t min, max; } sched_opts[] = {
	{ "sched_interval", "sched_interval_s", -1, 1000000 },
	{ "batch_sched_delay", "batch_sched_delay_s", 0, 1000000 },
	{ "default_queue_depth", "default_queue_depth", 0, 1000000 },
	{ "partition_job_depth", "partition_job_depth", 0, 1000000 },
	{ "sched_max_job_start", "sched_max_job_start", 0, 1000000 },
	{ "bf_interval", "bf_interval_s", -1, 10800 },
	{ "bf_resolution", "bf_resolution_s", 1, 3600 },
	{ "bf_window", "bf_window_min", 1, 43200 },
	{ "bf_max_job_test", "bf_max_job_test", 1, 1000000 },
	{ "bf_max_job_part", "bf_max_job_part", 0, 1000000 },
	{ "bf_max_job_user", "bf_max_job_user", 0, 1000000 },
	{ "bf_max_job_start", "bf_max_job_start", 0, 10000 },
	{ "bf_min_age_reserve", "bf_min_age_reserve_s", 0, 2592000 },
	{ "bf_min_prio_reserve", "bf_min_prio_reserve", 0, 4294967294LL },
	{ "bf_node_space_size", "bf_node_space_size", 2, 2000000 },
	{ NULL, NULL, 0, 0 },
};

static int sched_params(const struct sc_at *a, const char *k, const char *v)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(o, '=');
		if (eq)
			*eq = '\0';
		if (!strcasecmp(o, "assoc_limit_stop")) {
			if (sc_param(a, k, "assoc_limit_stop", 1))
				return -1;
			continue;
		}
		int i = 0;
		while (sched_opts[i].opt && strcasecmp(sched_opts[i].opt, o))
			i++;
		if (!sched_opts[i].opt) {
			sc_warn(a, k, "option %s is not modelled", o);
			continue;
		}
		char what[128];
		snprintf(what, sizeof what, "%s=N", o);
		int64_t x;
		if (!eq)
			return sc_bad(a, k, what, o);
		if (sc_int(a, o, eq + 1, sched_opts[i].min, sched_opts[i].max, false, 0, &x) ||
		    sc_param(a, k, sched_opts[i].param, (double)x))
			return -1;
	}
	return 0;
}

static int select_type(const struct sc_at *a, const char *k, const char *v)
{
	if (!strcasecmp(v, "select/cons_res"))
		sc_warn(a, k, "=%s is modelled as select/cons_tres (the same for whole GPUs and cores)", v);
	else if (strcasecmp(v, "select/cons_tres"))
		sc_warn(a, k, "=%s is not modelled: the twin selects as select/cons_tres", v);
	return 0;
}

static int select_params(const struct sc_at *a, const char *k, const char *v)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(o, "CR_Core_Memory") || !strcasecmp(o, "CR_Memory"))
			a->c->cr_memory = true;
		else if (!strcasecmp(o, "CR_Core"))
			a->c->cr_memory = false;
		else if (!strcasecmp(o, "CR_CPU_Memory") || !strcasecmp(o, "CR_CPU")) {
			a->c->cr_memory = strcasecmp(o, "CR_CPU") != 0;
			sc_warn(a, k, "%s is modelled as %s (the same when ThreadsPerCore=1)", o,
			        a->c->cr_memory ? "CR_Core_Memory" : "CR_Core");
		} else if (!strcasecmp(o, "CR_Socket_Memory") || !strcasecmp(o, "CR_Socket")) {
			a->c->cr_memory = strcasecmp(o, "CR_Socket") != 0;
			sc_warn(a, k, "%s is not modelled: cores are allocated, not whole sockets", o);
		} else {
			sc_warn(a, k, "%s is not modelled", o);
		}
	}
	return 0;
}

static int prio_type(const struct sc_at *a, const char *k, const char *v)
{
	if (!strcasecmp(v, "priority/multifactor"))
		return sc_param(a, k, "priority_multifactor", 1);
	if (!strcasecmp(v, "priority/basic"))
		return sc_param(a, k, "priority_multifactor", 0);
	return sc_bad(a, k, "priority/multifactor or priority/basic", v);
}

static int yes_param(const struct sc_at *a, const char *k, const char *v, const char *param)
{
	bool b;
	return sc_bool(a, k, v, &b) ? -1 : sc_param(a, k, param, b);
}

static int favor_small(const struct sc_at *a, const char *k, const char *v)
{
	return yes_param(a, k, v, "favor_small");
}

static int job_requeue(const struct sc_at *a, const char *k, const char *v)
{
	return yes_param(a, k, v, "job_requeue");
}

static int prio_flags(const struct sc_at *a, const char *k, const char *v)
{
	char buf[512];
	bool fair_tree = true, accrue = false;
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(o, "NO_FAIR_TREE"))
			fair_tree = false;
		else if (!strcasecmp(o, "DEPTH_OBLIVIOUS")) {
			fair_tree = false;
			sc_warn(a, k, "DEPTH_OBLIVIOUS is modelled as NO_FAIR_TREE (classic fair share)");
		} else if (!strcasecmp(o, "ACCRUE_ALWAYS"))
			accrue = true;
		else if (!strcasecmp(o, "FAIR_TREE"))
			fair_tree = true;
		else
			sc_warn(a, k, "%s is not modelled", o);
	}
	return sc_param(a, k, "fair_tree", fair_tree) || sc_param(a, k, "accrue_always", accrue) ? -1 : 0;
}

static int reset_period(const struct sc_at *a, const char *k, const char *v)
{
	if (strcasecmp(v, "NONE"))
		sc_warn(a, k, "=%s is not modelled: usage is never reset (only decayed)", v);
	return 0;
}

static int preempt_type(const struct sc_at *a, const char *k, const char *v)
{
	if (!strcasecmp(v, "preempt/qos"))
		return sc_param(a, k, "preempt_qos", 1);
	if (strcasecmp(v, "preempt/none"))
		sc_warn(a, k, "=%s is not modelled: the twin does not preempt", v);
	return sc_param(a, k, "preempt_qos", 0);
}

static int preempt_mode(const struct sc_at *a, const char *k, const char *v)
{
	char buf[256];
	int mode = 0;
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(o, "OFF"))
			mode = 0;
		else if (!strcasecmp(o, "CANCEL"))
			mode = 1;
		else if (!strcasecmp(o, "REQUEUE"))
			mode = 2;
		else if (!strcasecmp(o, "SUSPEND") || !strcasecmp(o, "GANG") || !strcasecmp(o, "WITHIN"))
			sc_warn(a, k, "%s is not modelled (the mode stays %s)", o,
			        mode == 2 ? "REQUEUE" : mode == 1 ? "CANCEL" : "OFF");
		else
			return sc_bad(a, k, "OFF, CANCEL, REQUEUE, SUSPEND or GANG", o);
	}
	return sc_param(a, k, "preempt_mode", mode);
}

static int def_mem(const struct sc_at *a, const char *k, const char *v)
{
	int64_t x;
	if (sc_int(a, k, v, 0, INT64_C(1) << 40, true, 0, &x))
		return -1;
	*(strcasecmp(k, "DefMemPerCPU") ? &a->c->def_mem_per_node_mib : &a->c->def_mem_per_cpu_mib) = x;
	return 0;
}

static int over_time(const struct sc_at *a, const char *k, const char *v)
{
	int64_t x;
	return sc_int(a, k, v, 0, 65533, true, 1000000, &x) ? -1 : sc_param(a, k, "over_time_limit_min", (double)x);
}

/* AuthInfo: cred_expire=N delays a requeued job's start by N + 1 s. */
static int auth_info(const struct sc_at *a, const char *k, const char *v)
{
	const char *ce = strcasestr(v, "cred_expire=");
	if (!ce)
		return 0;
	char num[32];
	snprintf(num, sizeof num, "%.*s", (int)strcspn(ce + 12, ","), ce + 12);
	int64_t x;
	return sc_int(a, "AuthInfo cred_expire", num, 5, 1000000, false, 0, &x) ? -1
	       : sc_param(a, k, "requeue_delay_s", (double)x + 1);
}

/* Epilog: with a script, slurmd's epilog-complete message makes
 * slurmctld pass at once when a job ends; without, at its next tick. */
static int epilog(const struct sc_at *a, const char *k, const char *v)
{
	return sc_param(a, k, "epilog_pass", v[0] != '\0');
}

static int enforce(const struct sc_at *a, const char *k, const char *v)
{
	bool on = strcasestr(v, "limits") || strcasestr(v, "safe") || strcasestr(v, "qos");
	return sc_param(a, k, "enforce_limits", on);
}

static const struct row rows[] = {
	{ "SchedulerType", K_FN, NULL, 0, 0, sched_type },
	{ "SchedulerParameters", K_FN, NULL, 0, 0, sched_params },
	{ "SelectType", K_FN, NULL, 0, 0, select_type },
	{ "SelectTypeParameters", K_FN, NULL, 0, 0, select_params },
	{ "PriorityType", K_FN, NULL, 0, 0, prio_type },
	{ "PriorityWeightAge", K_INT, "weight_age", 0, 4294967294LL, NULL },
	{ "PriorityWeightFairshare", K_INT, "weight_fairshare", 0, 4294967294LL, NULL },
	{ "PriorityWeightJobSize", K_INT, "weight_jobsize", 0, 4294967294LL, NULL },
	{ "PriorityWeightPartition", K_INT, "weight_partition", 0, 4294967294LL, NULL },
	{ "PriorityWeightQOS", K_INT, "weight_qos", 0, 4294967294LL, NULL },
	{ "PriorityWeightAssoc", K_INT, "weight_assoc", 0, 4294967294LL, NULL },
	{ "PriorityMaxAge", K_TIME_MIN_S, "max_age_s", 0, 0, NULL },
	{ "PriorityDecayHalfLife", K_TIME_MIN_S, "decay_halflife_s", 0, 0, NULL },
	{ "PriorityCalcPeriod", K_TIME_MIN_S, "calc_period_s", 0, 0, NULL },
	{ "PriorityFavorSmall", K_FN, NULL, 0, 0, favor_small },
	{ "PriorityFlags", K_FN, NULL, 0, 0, prio_flags },
	{ "PriorityUsageResetPeriod", K_FN, NULL, 0, 0, reset_period },
	{ "FairShareDampeningFactor", K_INT, "dampening", 1, 65534, NULL },
	{ "AccountingStorageEnforce", K_FN, NULL, 0, 0, enforce },
	{ "PreemptType", K_FN, NULL, 0, 0, preempt_type },
	{ "PreemptMode", K_FN, NULL, 0, 0, preempt_mode },
	{ "PreemptExemptTime", K_TIME_S, "preempt_exempt_s", 0, 0, NULL },
	{ "DefMemPerCPU", K_FN, NULL, 0, 0, def_mem },
	{ "DefMemPerNode", K_FN, NULL, 0, 0, def_mem },
	{ "OverTimeLimit", K_FN, NULL, 0, 0, over_time },
	{ "KillWait", K_INT, "kill_wait_s", 0, 65533, NULL },
	{ "MessageTimeout", K_INT, "msg_timeout_s", 1, 65533, NULL },
	{ "AuthInfo", K_FN, NULL, 0, 0, auth_info },
	{ "JobRequeue", K_FN, NULL, 0, 0, job_requeue },
	{ "Epilog", K_FN, NULL, 0, 0, epilog },
	{ NULL, 0, NULL, 0, 0, NULL },
};

int sc_global(const struct sc_at *a, const char *key, const char *val)
{
	for (const struct row *r = rows; r->key; r++) {
		if (strcasecmp(r->key, key))
			continue;
		int64_t x;
		switch (r->kind) {
		case K_INT:
			return sc_int(a, key, val, r->min, r->max, false, 0, &x) ? -1 : sc_param(a, key, r->param, (double)x);
		case K_TIME_S:
			return sc_time_s(a, key, val, &x) ? -1 : sc_param(a, key, r->param, (double)(x < 0 ? 0 : x));
		case K_TIME_MIN_S:
			if (sc_time_min(a, key, val, &x))
				return -1;
			if (x < 0)
				return sc_bad(a, key, "a time (MM, D-HH, ...; not UNLIMITED)", val);
			return sc_param(a, key, r->param, (double)x * 60);
		default:
			return r->fn(a, key, val);
		}
	}
	if (!sc_listed(quiet, key) && !sc_warn_table(a, warned, key, val))
		sc_warn(a, key, "is not a slurm.conf key the twin knows: ignored");
	return 0;
}
