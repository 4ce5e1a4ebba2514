/* live_cfg — what the live daemon is configured with (LIVE.json, read by
 * config/livecfg.c; docs/live.md documents every key): executor, probes,
 * state directory, timing, the metrics endpoint, the socket and the Slurm
 * block. The live layer owns these structs; the loader fills them. */
#ifndef HL_LIVE_CFG_H
#define HL_LIVE_CFG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIVE_MAX_PROBES 256

/* Where a node's readings come from. */
enum live_probe_kind {
	LIVE_PROBE_NONE,    /* no readings */
	LIVE_PROBE_HOST,    /* this host: /proc, /sys, NVML (live/reading.c) */
	LIVE_PROBE_FILE,    /* a reading file a node agent writes ("%n" is the node's name) */
};

struct live_probe_src {
	char node[64];                 /* "" = the default */
	enum live_probe_kind kind;
	char path[PATH_MAX];           /* LIVE_PROBE_FILE */
};

/* A JSON object of strings, as read ("training": "hi-prio", ...). */
#define LIVE_MAP_MAX 64
struct live_map {
	int n;
	struct { char k[64]; char v[128]; } e[LIVE_MAP_MAX];
};

#define LIVE_MAX_PARTITIONS 16
/* slurm.export: the environment a Slurm job starts with. */
enum live_slurm_export {
	LIVE_SLURM_EXPORT_MINIMAL,     /* "minimal": PATH, SLURM_CONF, HOME/USER/LOGNAME/SHELL from passwd */
	LIVE_SLURM_EXPORT_LOGIN,       /* "login": the user's login environment (--export=NONE) */
};
struct live_slurm_cfg {
	char bindir[PATH_MAX];         /* "" = PATH */
	char partition[LIVE_MAX_PARTITIONS][64];   /* the partitions this daemon drives ("" none: Slurm's default) */
	int npartition;
	struct live_map class_partition;   /* job class -> partition (else the first of partition holding its nodes) */
	struct live_map qos;           /* job class -> QOS */
	struct live_map accounts;      /* tenant name -> Slurm account */
	char account[64];              /* tenants not in accounts: "" none, "tenant" its name, else this account */
	struct live_map gres_types;    /* catalog GPU model -> the site's GRES type ("*" any; none: gpu:N) */
	struct live_map mig_gres;      /* MIG profile ("3g.40gb") -> GRES name:type ("gpu:3g.40gb"); none: refused */
	int shards_per_gpu;            /* GRES shards a card has (0: time-sliced shares refused) */
	int64_t mem_mib_default;       /* --mem for jobs that give no memory (0: none) */
	double start_timeout_s;        /* a placed job Slurm has not started by then is taken back (30) */
	int parallel;                  /* commands run at once (16) */
	int timeout_s;                 /* per command (30) */
	char workdir[PATH_MAX];        /* batch scripts and default outputs ("" = STATE_DIR/slurm) */
	enum live_slurm_export export_env;   /* "export" (login) */
};

struct live_cfg {
	char file[PATH_MAX];
	char scenario[PATH_MAX];       /* resolved against the config's directory */
	char policy[64];               /* "" = the scenario's */
	char exec[32];                 /* the executor's name, one the registry knows (below) */
	char state_dir[PATH_MAX];      /* resolved; default "hetlab-state" beside the config */
	double tick_s;                 /* the loop's longest sleep (default 1) */
	double probe_every_s;          /* probes read this often (default 10) */
	double record_every_s;         /* a node's reading is recorded at least this often (60) */
	double results_every_s;        /* results.db rewritten from the recording this often (300; 0 only at exit) */
	int32_t max_jobs;              /* jobs the engine holds at once, ended ones not yet dropped
	                                  included (default 100000) */
	int32_t keep_ended;            /* ended jobs the engine keeps before it drops them from its
	                                  tables (sim_compact; default 1000; 0: never) */
	int32_t snapshot_every;        /* a snapshot of the engine after a compaction that dropped jobs and
	                                  at least every so many commits (default 1000; 0: never) */
	int32_t snapshot_keep;         /* snapshots kept in STATE_DIR/snapshots beside the latest (default 48;
	                                  0: none), for replays of older windows and for pruning */
	double snapshot_keep_every_s;  /* one kept at most this often, in engine seconds (3600; 0: each) */
	double prune_keep_days;        /* the daemon prunes what was recorded before this many days ago
	                                  (live/autoprune.c; -1: it does not, the default) */
	double prune_every_s;          /* ... this often (3600) */
	double hot_c, cool_c;          /* hot node threshold and its resume (0: off) */
	double xid_repair_s;           /* a GPU error counts against its node this long (86400) */
	double stale_s;                /* a reading file older than this is ignored (3 × probe_every_s) */
	struct live_probe_src probe[LIVE_MAX_PROBES];
	int nprobe;
	/* "local" */
	int sig;                       /* checkpoint signal (default SIGUSR1) */
	char cgroup_parent[PATH_MAX];  /* "" = no cgroups */
	char nvml_lib[PATH_MAX];       /* "" = libnvidia-ml.so.1 ($HETLAB_NVML_LIB overrides) */
	char sysfs_root[PATH_MAX];     /* "/" (tests point it at a fake tree) */
	/* "slurm" (docs/slurm.md) */
	struct live_slurm_cfg slurm;
	/* "metrics" */
	char metrics_addr[64];         /* "" = no endpoint */
	int metrics_port;
	bool metrics_public;
	/* Security (docs/live.md "Security") */
	char socket[PATH_MAX];         /* the daemon's Unix socket (resolved); "" = STATE_DIR/hetlab.sock */
	char operators[64];            /* group whose members may see, cancel and approve everything ("" none) */
	char state_group[64];          /* group given the state directory (0750); "" 0700 */
	/* "audit_key": the key that authenticates the audit head of every
	 * results.db of the state (docs/audit.md), as written: relative to the
	 * config's directory; "" unkeyed. */
	char audit_key[PATH_MAX];
	int32_t max_pending_per_user;  /* jobs not started a user who is not an operator may have (10000; 0 no limit) */
};

/* What reads a LIVE.json (config/livecfg.c's livecfg_load): the live layer
 * is handed it (by the command line), so that it needs no loader of its
 * own to read the config a state was recorded with. */
typedef int (*live_cfg_loader)(const char *path, struct live_cfg *c, char *err, size_t errlen);

/* The executors' registry, by name (live/exec/registry.c; the contract of
 * an executor is live/exec/executor.h). Declared here, the one header of
 * live/ the config loader sees, which checks the "executor" key with it.
 * exec_find: the executor named name ("" or NULL: the default, "local"),
 * NULL when there is none; exec_name: its name. exec_names: every name
 * into buf, each between quote, "a, b or c", for a message. */
struct live_executor;
const struct live_executor *exec_find(const char *name);
const char *exec_name(const struct live_executor *x);
void exec_names(char *buf, size_t len, const char *quote);

/* The probe source of node `name` (its own entry, else the default). */
const struct live_probe_src *livecfg_probe(const struct live_cfg *c, const char *name);
/* The value of key in m, else the value of "*", else NULL. */
const char *livecfg_map_get(const struct live_map *m, const char *key);

#endif
