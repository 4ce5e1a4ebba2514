/* slurmconf — a site's slurm.conf and gres.conf read into plain structs,
 * for `hetlab twin build` (docs/slurm-twin.md has every key: what Slurm
 * does with it and what the twin makes of it).
 *
 * slurm.conf is read as Slurm 22.05 reads it: `key=value` pairs separated
 * by blanks (a value may be "quoted"), keys case-insensitive, `#` starts
 * a comment, a line ending in `\` goes on on the next, `Include FILE`
 * (relative to the including file's directory, `%c` the cluster's name)
 * reads another file in place. A line whose first key is NodeName or
 * PartitionName defines nodes or a partition (`NodeName=DEFAULT` and
 * `PartitionName=DEFAULT` set the defaults of the lines after them);
 * every other pair is a global key. Node names are Slurm host lists
 * (traces/hostexpr.h).
 *
 * Three kinds of key (the table in slurmglob.c, one row a key):
 * - modelled: the policy parameters of /work/notes/slurm-params.md
 *   (struct sconf.param) or a field of struct slurm_cfg;
 * - accepted: no bearing on when jobs start (paths, ports, logs, daemons'
 *   plugins, submit-time checks the dump's jobs have passed);
 * - not modelled: a warning "FILE:LINE: KEY is not modelled: why" in
 *   struct sconf.warn; unknown keys warn the same way.
 * A malformed value is an error "FILE:LINE: KEY: expected ..., got '...'";
 * a failed read leaves the struct empty (sconf_fini'd).
 *
 * Ownership: struct sconf owns everything it points to; sconf_fini frees
 * it (after success or failure alike, and twice is harmless). */
#ifndef HL_SLURMCONF_H
#define HL_SLURMCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/slurm.h"
#include "sim/strset.h"
#include "traces/hostexpr.h"

#define SCONF_MAX_PARAMS 64

/* Messages gathered while reading (warnings: the read goes on). */
struct slurm_msgs {
	char **v;
	int32_t n, cap;
};
__attribute__((format(printf, 2, 3)))
void slurm_msgs_add(struct slurm_msgs *m, const char *fmt, ...);
void slurm_msgs_free(struct slurm_msgs *m);

/* Slurm's time strings into seconds: "MM", "MM:SS", "HH:MM:SS", "D-HH",
 * "D-HH:MM", "D-HH:MM:SS"; "UNLIMITED" and "INFINITE" give SLURM_UNLIMITED.
 * 0, or -1 when s is none of these. */
int slurm_time_parse(const char *s, int64_t *secs);
/* The same rounded up to whole minutes, as slurm.conf's time_str2mins. */
int slurm_time_min(const char *s, int64_t *mins);
/* What a time value should look like, for messages. */
extern const char SLURM_TIME_FORMS[];

/* One NodeName line (its DEFAULT values folded in). */
struct sconf_nodeline {
	char *expr;                 /* NodeName= as written (owned) */
	int32_t file, line;         /* where: files[file], line */
	int32_t first, n;           /* its nodes: node[first .. first + n) */
	int32_t cpus;               /* CPUs (else Boards x Sockets x CoresPerSocket x ThreadsPerCore) */
	int32_t sockets;            /* Boards x Sockets (SocketsPerBoard) */
	int32_t cores_per_socket, threads_per_core;
	int64_t mem_mib;            /* RealMemory (1) */
	int64_t weight;             /* Weight (1) */
	char features[256];         /* Feature= / Features=, "" none */
	char gpu_type[SLURM_NAME_MAX];   /* Gres=gpu:TYPE:N; "" untyped */
	int32_t gpus;
	bool down;                  /* State=DOWN, DRAIN or FUTURE */
};

struct sconf_node {
	char name[HOSTEXPR_NAME_MAX];
	int32_t nl;                 /* its line, index into nodeline */
	char gpu_type[SLURM_NAME_MAX];   /* the line's, or gres.conf's when the line has none */
	int32_t gpus;
};

struct sconf_part {
	struct slurm_part p;        /* node_names: the Nodes= host lists ("ALL" as is); qos -1 */
	char qos[SLURM_NAME_MAX];   /* QOS=, "" none */
	int32_t file, line;
};

struct sconf_param {
	char name[32];              /* a slurm policy parameter (slurm-params.md) */
	double value;
	int32_t file, line;         /* where slurm.conf set it */
};

struct sconf {
	char **files;               /* every file read, as named (for messages) */
	int32_t nfiles;
	char cluster[SLURM_NAME_MAX];       /* ClusterName */
	struct sconf_nodeline *nodeline;
	int32_t nnodelines;
	struct sconf_node *node;    /* in file order */
	int32_t nnodes;
	struct sconf_part *part;
	int32_t nparts;
	struct sconf_param param[SCONF_MAX_PARAMS];
	int32_t nparams;
	bool cr_memory;             /* SelectTypeParameters *_Memory (the default CR_Core_Memory) */
	int64_t def_mem_per_cpu_mib, def_mem_per_node_mib;   /* 0 unset */
	bool gres_read;             /* a gres.conf was read */
	struct slurm_msgs warn;     /* "FILE:LINE: KEY ..." */
	struct strset node_set;     /* node by name */
};

void sconf_init(struct sconf *c);
void sconf_fini(struct sconf *c);

/* Reads slurm.conf (and what it includes) into c, initialised first.
 * 0, or -1 with "FILE:LINE: KEY: what was expected" in err. */
int sconf_read(const char *path, struct sconf *c, char *err, size_t errlen);
/* Reads a gres.conf into c (after sconf_read): its GPU lines name the
 * nodes' GPU types where slurm.conf's Gres= gives none; counts or types
 * that disagree with slurm.conf warn (slurm.conf wins, as in slurmctld). */
int sconf_read_gres(const char *path, struct sconf *c, char *err, size_t errlen);

/* The index of node `name`, or -1. */
int32_t sconf_find_node(const struct sconf *c, const char *name);
/* Sets policy parameter name (last one wins). -1 when the table is full. */
int sconf_set_param(struct sconf *c, const char *name, double value, int32_t file, int32_t line);
/* The parameter's value, or def when slurm.conf does not set it. */
double sconf_param(const struct sconf *c, const char *name, double def);

#endif
