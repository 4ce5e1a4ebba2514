/* trace — job traces in and out: SWF, native JSON Lines, and the minimal
 * synthetic generator. Each reader fills a struct workload, which owns its
 * arrays: a job table and, beside it, each job's truth (real runtime and
 * outcome, hidden from policies). Readers stream: they read a line at a
 * time and never hold the whole file.
 *
 * Errors: every function returns 0 on success and -1 on failure with a
 * message in err that names the file and line (and the field) and what
 * was expected. A failed read leaves *w empty (workload_free'd). */
#ifndef HL_TRACE_H
#define HL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/job.h"
#include "sim/strset.h"

/* The unit of an SWF memory field (field 10 requested, field 7 used):
 * the spec's KB per processor, unless a header note says otherwise
 * (traces/swfext.h, docs/traces.md "Memory units"). Zero is the default. */
enum swf_mem_scale { SWF_MEM_KB, SWF_MEM_BYTES, SWF_MEM_MB, SWF_MEM_GB };
enum swf_mem_per { SWF_MEM_PER_PROC, SWF_MEM_PER_NODE, SWF_MEM_PER_JOB };
struct swf_mem_unit {
	int8_t scale;          /* enum swf_mem_scale */
	int8_t per;            /* enum swf_mem_per */
	int64_t line;          /* the header line that said so; 0: the default */
};
/* What field 21 gave a job that its standard fields lacked. */
enum { SWF_SITE_PROCS, SWF_SITE_TIME, SWF_SITE_MEM, SWF_SITE_SHAPE };

struct workload {
	struct job *jobs;
	struct job_truth *truth;
	int32_t n, cap;
	int64_t n_taken;           /* jobs taken out of jobs[] before (live mode reads one line at a
	                              time): a job's position in the input is n_taken + its index */
	/* From an SWF header, -1 when absent. */
	int32_t max_procs, max_nodes;
	int64_t unix_start;
	/* SWF TimeZoneString (an IANA zone such as "Europe/Stockholm"): the
	 * zone of the log's local hours; "" when absent. */
	char tz[64];
	/* Lines skipped: malformed (with lenient) and unusable (unknown runtime
	 * or processor count, which SWF allows but a replay cannot use). */
	int64_t skipped_malformed, skipped_unusable;
	int64_t lines;
	/* Extended SWF: job lines with fields after the 18 standard ones, and
	 * the most such fields on one line (fields 19 and 20 are ignored; 21
	 * is the site's request, traces/swfext.h). */
	int64_t extra_field_lines;
	int32_t extra_fields_max;
	/* SWF submit times that were Unix times (docs/traces.md "Absolute
	 * times"): the Unix time subtracted from every submit, which is then
	 * unix_start; 0 when the log's times were relative, as the spec says. */
	int64_t rebased_from;
	int64_t header_unix_start;      /* the header's UnixStartTime when rebased_from replaced it */
	/* SWF memory fields' units: field 10 (requested), field 7 (used). */
	struct swf_mem_unit mem_req_unit, mem_used_unit;
	/* SWF field 21: job lines whose request was read, and the jobs it gave
	 * a value the standard fields lacked, per SWF_SITE_* kind. */
	int64_t site_req_lines;
	int64_t site_req_used[4];
	/* Slurm dumps (traces/sacct.h, sacct_notes): lines merged as later runs
	 * of their job (sacct -D), and jobs submitted later than a job of a
	 * higher JobID (requeued, in a dump without -D) with the first such
	 * JobID and the higher one. */
	int64_t sacct_merged, sacct_late;
	int64_t sacct_estimated;   /* jobs cancelled by a preemption, their run estimated */
	int64_t sacct_ms;          /* jobs whose Submit slurmctld's log gave to the millisecond */
	int64_t sacct_late_id[2];
	/* Kubernetes pod lists (traces/k8s.h, k8s_notes): pods that never ran
	 * (Pending, Unknown, no start) and pods that ask for nothing a node
	 * counts, both skipped; Running pods, run to the file's last time
	 * (k8s_end, Unix s); PodGroups made gangs, and the pods in them. */
	int64_t k8s_not_run, k8s_empty, k8s_running, k8s_end;
	int64_t k8s_gangs, k8s_gang_pods;
	/* Strings the requests refer to — label expressions, plane and pool
	 * names — stored once: job_req.sel_req / sel_pref / plane / pool hold
	 * index + 1 into str until cluster_bind_workload rewrites them. */
	char **str;
	int32_t nstr, capstr;
	struct strset strset;   /* str by content (workload_intern) */
	/* Names a trace gives (a Slurm accounting dump's), NULL and 0 when it
	 * gives none: the tables of users, accounts, partitions, QOS, GPU types
	 * and job names (workload_name), and per job (parallel to jobs, kept in
	 * step by workload_sort and every reader that reorders or copies jobs)
	 * its GPU type and job name as indexes into their tables (-1 none).
	 * job.tenant indexes WL_USER, job.group WL_ACCOUNT, job.queue
	 * WL_PARTITION and job.qos WL_QOS. */
	struct wl_names {
		char **v;
		int32_t n, cap;
		struct strset set;
	} names[6];
	int32_t *job_gpu_type;
	int32_t *job_name;
};

/* The kinds of names a trace may carry (struct workload.names). */
enum wl_name_kind { WL_USER, WL_ACCOUNT, WL_PARTITION, WL_QOS, WL_GPU_TYPE, WL_JOB_NAME, WL_NKIND };
/* "user", "account", "partition", "qos", "gpu_type", "job_name". */
const char *wl_name_kind_str(enum wl_name_kind k);
/* Name idx of kind k, or NULL when the trace has no such name. */
const char *workload_name(const struct workload *w, enum wl_name_kind k, int32_t idx);
/* The index of name s of kind k, added when new; -1 on ENOMEM. */
int32_t workload_name_add(struct workload *w, enum wl_name_kind k, const char *s);
/* Job i's GPU type / job name, or NULL. */
const char *workload_job_gpu_type(const struct workload *w, int32_t i);
const char *workload_job_name(const struct workload *w, int32_t i);
/* Sets job i's (i < w->n) GPU type (k WL_GPU_TYPE) or job name (WL_JOB_NAME)
 * to s, NULL or "" none; the per-job table is made on first use. 0, or -1
 * on ENOMEM. */
int workload_job_set(struct workload *w, enum wl_name_kind k, int32_t i, const char *s);
/* Whether the trace gave any name. */
bool workload_has_names(const struct workload *w);

/* The longest time a trace may give — a submit time, a runtime, a walltime,
 * a checkpoint interval — about 31.7 years (docs/traces.md "Limits"): a
 * replay samples until the last job ends, so a job of INT64_MAX µs would
 * never finish. Every reader refuses more, naming the line and field. */
#define TRACE_MAX_TIME_S 1000000000LL
#define TRACE_MAX_TIME_US (TRACE_MAX_TIME_S * SIMTIME_SEC)
/* The longest line a trace or inventory reader takes (linereader_next
 * fails past it, naming the line): real lines are under a kilobyte. */
#define TRACE_LINE_MAX (1 << 20)

void workload_init(struct workload *w);
void workload_free(struct workload *w);
/* Appends a copy; the job's id is set to its index. -1 on ENOMEM. */
int workload_add(struct workload *w, const struct job *j, const struct job_truth *t);
/* Index of s in w->str, added when new (compared by content); -1 on ENOMEM. */
int workload_intern(struct workload *w, const char *s);
/* Stable sort by submit time; ids renumbered to indexes. */
void workload_sort(struct workload *w);
/* Rebuilds the job table from n picks: job k becomes a copy of the job
 * that was at from[k] (its truth, GPU type and job name with it); a job
 * may be picked any number of times, or none. Ids are left as they were
 * (workload_sort renumbers). 0, or -1 on ENOMEM (w unchanged). */
int workload_pick(struct workload *w, const int32_t *from, int32_t n);

struct inv_map;
struct catalog;

/* How SWF jobs become requests (docs/traces.md, "Request shapes"). */
enum swf_shape_kind {
	SWF_SHAPE_CORES,       /* processors are cores anywhere (spread): the default */
	SWF_SHAPE_NODES,       /* a gang of ceil(procs / ppn) nodes */
};
enum swf_mem_mode {
	SWF_MEM_IGNORE,        /* no memory request: the default */
	SWF_MEM_REQUESTED,     /* field 10, requested memory (KB per processor unless the header says; field 21 when -1) */
	SWF_MEM_USED,          /* field 7, used memory (KB per processor unless the header says) */
};
#define SWF_MAX_PARTITIONS 64
struct swf_shape {
	enum swf_shape_kind kind;
	int32_t ppn;           /* processors per node (SWF_SHAPE_NODES: required) */
	bool exclusive;        /* SWF_SHAPE_NODES: each node's ppn cores, however few procs */
	enum swf_mem_mode mem;
	/* The memory fields' unit when the scenario gives it
	 * ("memory_unit"): it wins over the header's notes. */
	bool mem_unit_given;
	struct swf_mem_unit mem_unit;
	/* Partition (field 16) -> a required label expression; -1 and unlisted
	 * partitions: an error when any is listed, except -1 (no constraint). */
	int32_t npart;
	struct { int64_t partition; char expr[128]; } part[SWF_MAX_PARTITIONS];
	/* Slurm accounting dumps (traces/sacct.h; scenario "workload.slurm"):
	 * non-empty, the label a job's partition / GPU type must equal. */
	char partition_label[64];
	char gpu_type_label[64];
	/* "preempted_run": "estimate" (struct sacct_opts' estimate_preempted)
	 * or "elapsed" (the default); "ctld_log": slurmctld's log for the
	 * submissions' milliseconds, "" none (relative paths resolved against
	 * the scenario's directory when it is loaded). */
	bool estimate_preempted;
	char ctld_log[4096];
	/* openb pod lists: gpu_spec names map to the catalog's GPU models
	 * (req.gpu_models) through inv (a scenario's from_inventory.gpu_models;
	 * NULL: the names are catalog names). cat NULL: not mapped. */
	const struct inv_map *inv;
	const struct catalog *cat;
};

struct swf_opts {
	bool lenient;          /* skip and count malformed lines instead of failing */
	const struct swf_shape *shape;  /* NULL: the default shape (cores anywhere) */
};
/* Reads an SWF file, plain or gzip (detected by content, not name). */
int trace_swf_read(const char *path, const struct swf_opts *o, struct workload *w,
                   char *err, size_t errlen);

/* Native JSON Lines: one job per line, every field of struct job that a
 * trace carries plus its truth. Written sorted by submit. */
int trace_jsonl_read(const char *path, struct workload *w, char *err, size_t errlen);
int trace_jsonl_write(const char *path, const struct workload *w, char *err, size_t errlen);
/* One job line (live mode's `hetlab submit`): appended to w (not sorted);
 * keys listed in `ignore` (NULL-terminated, may be NULL) are skipped.
 * Errors read "SRC:LINE: $.path: what". */
int trace_jsonl_parse_job(const char *src, int64_t line, const char *text, size_t len,
                          const char *const *ignore, struct workload *w, char *err, size_t errlen);

/* The synthetic generator. Per class: arrivals (Poisson at rate_per_h,
 * shaped by an hour-of-week profile by thinning, with optional bursts),
 * durations (lognormal, Weibull, gamma or an empirical distribution), sizes
 * (a GPU-count mix; CPU-only jobs from a core-count mix), GPU models and
 * memory, checkpoint interval, tenants. Each class draws from its own GSL
 * RNG stream seeded from the seed, so the workload for a seed is the same
 * whatever the policy, and changing one class leaves the others' jobs as
 * they were. docs/workloads.md documents every parameter. */
#define SYNTH_MIX_MAX 32
#define SYNTH_EMP_MAX 101
#define SYNTH_TENANTS_MAX 256
#define SYNTH_HOURS 168             /* hours in a week; hour 0 is Monday 00:00 */
#define SYNTH_EXPR_MAX 256          /* longest label expression + 1 */
#define SYNTH_NAME_MAX 48           /* longest plane or pool name + 1 */
#define SYNTH_SIZE_MAX 12           /* size classes of the joint size-duration model */
#define SYNTH_SIZE_GPU (INT64_C(1) << 32) /* size key of a GPU job: this + its GPUs */

enum synth_dist { SYNTH_LOGNORMAL, SYNTH_WEIBULL, SYNTH_GAMMA, SYNTH_EMPIRICAL, SYNTH_NDIST };
const char *synth_dist_name(enum synth_dist d);
/* -1 when `name` is not a distribution name. */
int synth_dist_parse(const char *name);

struct synth_class {
	double rate_per_h;          /* mean arrival rate; 0 disables the class */
	/* Relative arrival rate by hour of week (any positive scale: it is
	 * normalised to mean 1); all zero means flat. */
	double profile[SYNTH_HOURS];
	double burst_p;             /* probability that an arrival brings a burst */
	double burst_mean;          /* mean extra jobs in a burst (geometric), ≥ 0 */
	double burst_gap_s;         /* seconds between the jobs of a burst */
	int32_t dur_dist;           /* enum synth_dist */
	double dur_median_s;        /* lognormal: median and sigma of ln(duration) */
	double dur_sigma;
	double dur_shape;           /* Weibull k and scale λ; gamma k and scale θ */
	double dur_scale_s;
	int32_t nemp;               /* empirical: nemp ≥ 2 quantiles at equal steps of */
	double emp_s[SYNTH_EMP_MAX]; /* probability, drawn by linear interpolation */
	double dur_max_s;           /* truncation (resampled above it); 0 = none */
	/* Durations by size (the joint model): with nsize > 0 a job's size is
	 * drawn first, then its duration from the quantiles of its size class
	 * i, the first with size <= size_max[i] (size = cores of a CPU-only
	 * job, SYNTH_SIZE_GPU + GPUs of a GPU job, before scale_size); the
	 * class-wide distribution above is then unused. */
	int32_t nsize;
	int64_t size_max[SYNTH_SIZE_MAX];
	int32_t nsize_q[SYNTH_SIZE_MAX];
	double size_q[SYNTH_SIZE_MAX][SYNTH_EMP_MAX];
	/* Arrivals as a renewal process in profile time: with ngap >= 2, the
	 * gaps between arrivals are drawn from these quantiles (s of profile
	 * time, zero gaps included: simultaneous submissions), and the hour-
	 * of-week profile stretches them; bursts are then unused. 0: Poisson. */
	int32_t ngap;
	double gap_s[SYNTH_EMP_MAX];
	double walltime_factor;     /* estimate = duration × factor (≥ 1) */
	int32_t nmix;               /* GPUs per job: values and probabilities */
	int32_t mix_gpus[SYNTH_MIX_MAX];
	double mix_p[SYNTH_MIX_MAX];
	int32_t ncpu_mix;           /* cores of a CPU-only job (mix value 0): values and */
	int32_t cpu_mix[SYNTH_MIX_MAX];   /* probabilities; none: cpu_cores */
	double cpu_mix_p[SYNTH_MIX_MAX];
	bool spread;                /* CPU-only jobs are spread requests (cores on any nodes, as SWF jobs) */
	int32_t cores_per_gpu;      /* cores per node = gpus per node × this */
	int32_t cpu_cores;          /* cores of a CPU-only job when there is no cpu mix */
	int64_t mem_per_gpu_mib;    /* node memory per GPU; CPU-only: per job */
	int64_t gpu_mem_mib;        /* minimum GPU memory */
	uint64_t gpu_models;        /* allowed GPU models (catalog bits); 0 = any */
	double fail_p;              /* probability the job fails at its end */
	int32_t ntenants;           /* tenants 0 .. ntenants-1, drawn by weight */
	double tenant_w[SYNTH_TENANTS_MAX];   /* all zero: uniform */
	double ckpt_every_s;        /* checkpoint interval of the class's jobs; 0 = none */
	/* Shared GPUs and placement constraints (docs/workloads.md "Requests
	 * beyond counts"). Every one is off when zero or empty, and a knob
	 * that is off draws no variates. */
	double mig_p;               /* a 1-GPU job becomes a MIG request with this probability */
	int32_t nmig;               /* its compute slices (1..7): values and probabilities */
	int32_t mig_mix[SYNTH_MIX_MAX];
	double mig_mix_p[SYNTH_MIX_MAX];
	double share_p;             /* a 1-GPU non-MIG job becomes a time-sliced share */
	int32_t nshare;             /* its gpu_milli (1..1000): values and probabilities */
	int32_t share_mix[SYNTH_MIX_MAX];
	double share_mix_p[SYNTH_MIX_MAX];
	double fp8_p;               /* probability a GPU job requires FP8 (REQ_FP8) */
	int32_t precision;          /* enum precision of every job (0 = fp16) */
	uint32_t flags;             /* REQ_NUMA_LOCAL | REQ_AVX512 | REQ_AMX on every job */
	char require[SYNTH_EXPR_MAX];   /* required label expression; "" none */
	char prefer[SYNTH_EXPR_MAX];    /* preferred label expression; "" none */
	char plane[SYNTH_NAME_MAX];     /* required network plane; "" any */
	char pool[SYNTH_NAME_MAX];      /* storage pool; "" none */
	int32_t io_mbps;            /* bandwidth reserved on pool while running */
	int64_t storage_gib;        /* capacity taken on pool while running */
};
/* A synthetic inference service: a diurnal request-rate curve and a replica
 * model. Every step_s the rate is
 *   r(t) = trough + (peak − trough) · (1 + cos(2π (h − peak_hour) / 24)) / 2
 *          · (weekend_factor on Saturday and Sunday) · e^(N(0, noise_sigma²))
 * (h the hour of day, fractional) and the service runs
 *   n(t) = clamp(⌈r(t) / rps_per_replica⌉, min_replicas, max_replicas)
 * replicas: each replica is an inference job (group = the service's index)
 * that starts when the count rises and ends when it falls (newest first). */
#define SYNTH_SERVICES_MAX 64
struct synth_service {
	char name[48];
	double peak_rps, trough_rps;  /* requests per second at the daily peak and trough */
	double peak_hour;             /* hour of day of the peak, [0, 24) */
	double weekend_factor;        /* rate multiplier on Saturday and Sunday */
	double noise_sigma;           /* lognormal noise on each step's rate; 0 none */
	double rps_per_replica;       /* requests per second one replica serves */
	double step_s;                /* how often the replica count is re-evaluated */
	int32_t min_replicas, max_replicas;
	int32_t gpus, cores;          /* per replica (one node) */
	int64_t mem_mib, gpu_mem_mib;
	uint64_t gpu_models;          /* allowed GPU models (catalog bits); 0 any */
	int32_t tenant;
	int32_t mig_g;                /* a MIG instance of this many compute slices (gpus 1); 0 none */
	int32_t gpu_milli;            /* a time-sliced share of one GPU (gpus 1); 0 whole cards */
	char require[SYNTH_EXPR_MAX]; /* required / preferred label expressions; "" none */
	char prefer[SYNTH_EXPR_MAX];
};

struct synth_cfg {
	double days;                 /* length of the arrival window */
	int32_t gpus_per_node;       /* jobs above it become gangs of full nodes */
	/* Planning knobs: every class's rate × scale_rate × class_scale[c];
	 * GPU and core counts × scale_size (rounded, at least 1). Default 1. */
	double scale_rate, scale_size;
	double class_scale[JOB_NCLASS];
	struct synth_class cls[JOB_NCLASS];
	int32_t nservices;           /* synthetic inference services (class inference) */
	struct synth_service svc[SYNTH_SERVICES_MAX];
};
/* A configuration with the defaults: 7 days, 8 GPUs a node, scales 1, every
 * class disabled (rate 0), lognormal, walltime factor 1, one tenant. */
void synth_cfg_init(struct synth_cfg *c);
int trace_synth(const struct synth_cfg *c, uint64_t seed, struct workload *w,
                char *err, size_t errlen);

/* Line reader over plain or gzip files (zlib's gzopen reads both). */
struct linereader;
struct linereader *linereader_open(const char *path, char *err, size_t errlen);
/* Next line without its newline (NUL-terminated, valid until the next call);
 * NULL at end of file or on error (then *err is set and lr_error() != 0). */
const char *linereader_next(struct linereader *lr, size_t *len);
int64_t linereader_lineno(const struct linereader *lr);
int linereader_error(const struct linereader *lr);
void linereader_close(struct linereader *lr);

#endif
