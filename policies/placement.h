/* placement — where a job goes once a queue discipline has decided that it
 * starts: a small table of placement strategies (first fit, best fit, worst
 * fit, random, dot product, GPU packing, GPU clustering, FGD, topology),
 * any of which combines with any queue discipline.
 *
 * A strategy is a const struct placement_ops. Its hooks only rate things —
 * a node for one node's share of a request, a card for a time-sliced share,
 * and (topology) a choice of nodes for a multi-node gang (the strategies and
 * their table are placement_ops.c); the placer in placement.c applies the
 * rules every strategy keeps: candidates are the nodes that
 * cluster_node_fits_ex accepts, the job's preferred labels are the primary
 * key, GPU gangs stay within one (GPU model, network plane) group, NUMA
 * splits come from cluster_numa_split, MIG instances from
 * cluster_mig_pick, and parts come out in increasing node order. A NULL hook
 * rates everything 0, which leaves node order (first fit).
 *
 * A struct placer is caller-owned storage holding the chosen strategy, what
 * it may ignore (label-blind placement), its seed and every scratch array,
 * sized at placer_init so that placing allocates nothing. It reads only the
 * cluster and free state it is handed, the jobs submitted so far (fgd's
 * typical pods) and, for gpu-clustering, the running jobs of the view it is
 * synced with: it is as pure as the policies that own it. The one exception
 * to "allocates nothing after init" is fgd's typical-pod table, rebuilt by
 * placer_submit each time the count of submitted jobs has grown by a
 * quarter (a submit hook, not a scheduling pass; O(log n) times a run).
 *
 * docs/policies.md "Placement strategies" defines each score. */
#ifndef HL_PLACEMENT_H
#define HL_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/gpushare.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/snap.h"
#include "sim/view.h"

struct placer;

/* What one node would give one node's share of a request (the thing a node
 * score rates): cores and memory, whole cards, a time-sliced share. */
struct place_take {
	int32_t cores;
	int64_t mem_mib;
	int32_t gpus;           /* whole cards */
	int32_t milli;          /* a time-sliced share (0 none) */
	bool mig;               /* a MIG instance (no whole card, no milli) */
};

/* Candidate scratch (one per node). key[] is the strategy's rating, higher
 * first; compared after the preferred-label score and before node index. */
struct place_cand {
	int32_t node;
	int32_t pref;           /* terms of the job's preferred expression met */
	int32_t group;          /* (GPU model, plane) group of a gang; -1 none */
	int32_t leaf;
	int32_t cores;          /* spread requests: cores it would give */
	int32_t pad_;
	double key[2];
};

struct placement_ops {
	const char *name;       /* "best-fit" */
	const char *summary;    /* one line for `hetlab policies` */
	/* Rates `node` (free state nf, one node's) for giving `t` of job j:
	 * fills key[0] (primary) and key[1] (tie-break), higher better.
	 * NULL: both 0. */
	void (*node_score)(const struct placer *pl, const struct cluster *cl,
	                   const struct nodefree *nf, int node, const struct job *j,
	                   const struct place_take *t, double key[2]);
	/* Rates card g of `node` for a time-sliced share of j. NULL: the node's
	 * node_score, the lowest card among equals. */
	void (*card_score)(const struct placer *pl, const struct cluster *cl,
	                   const struct nodefree *nf, int node, int g, const struct job *j,
	                   double key[2]);
	/* Chooses the nodes of a multi-node gang from the pl->ncand candidates
	 * in pl->cand (already rated): writes their indexes in pl->cand to
	 * pick[0 .. nodes) and returns 1, or 0 when it cannot. NULL: the group
	 * rule (the best-rated candidate's (model, plane) group that has enough
	 * candidates, its best `nodes`). */
	int (*gang)(struct placer *pl, const struct cluster *cl, const struct job *j, int32_t *pick);
	unsigned needs;         /* PLACEMENT_NEEDS_* */
};

enum {
	PLACEMENT_NEEDS_TYPICAL = 1u << 0,   /* placer_submit keeps typical pods (fgd) */
	PLACEMENT_NEEDS_AFFINITY = 1u << 1,  /* placer_sync counts GPU pods per node (gpu-clustering) */
};

struct placer {
	const struct placement_ops *ops;
	unsigned how;                 /* FIT_IGNORE_GPU_MEM when label-blind */
	uint64_t seed;
	int32_t nnodes;
	/* scratch, sized at init */
	struct place_cand *cand;      /* nnodes */
	int32_t ncand;
	int32_t *ord;                 /* nnodes: candidate order */
	int32_t *ord2;                /* nnodes: a second order (topology) */
	int32_t *pick;                /* nnodes: the candidates a gang takes */
	int32_t *gcount;              /* ngroups: candidates per group */
	int32_t *gstatic;             /* ngroups: nodes that suit per group */
	int32_t *glast;               /* ngroups: the group's last node (-1 none) */
	int32_t *gseen;               /* ngroups: groups in the order their first candidate came */
	int32_t ngroups, nplanes1;
	int32_t *runs;                /* 3 × nnodes: (start, count, leaf) runs (topology) */
	/* gpu-clustering: GPU pods per node and affinity tag, from the view */
	int32_t *aff;                 /* nnodes × GS_NAFF */
	uint64_t aff_epoch;
	bool aff_valid;
	/* fgd: requests seen so far and the typical pods built from them */
	struct gs_req *seen;
	int32_t nseen, cap_seen, built_at;
	struct gs_typical typ;
	const struct gpu_placement *gs_dot, *gs_clu;
};

/* The strategy named `name` (NULL or "" = first-fit), or NULL. */
const struct placement_ops *placement_find(const char *name);
/* NULL-terminated, in listing order. */
const struct placement_ops *const *placement_all(void);
/* "first-fit, best-fit, ..." for error messages. */
void placement_names(char *buf, size_t len);

/* Sets up pl for strategy `name` on cluster cl (sizes only; no pointer to
 * free state is kept) and a run of at most njobs jobs. label_blind: ignore
 * GPU memory needs when fitting (a job may then OOM). 0, or -1 with a
 * message naming the unknown strategy or ENOMEM. placer_fini after either. */
int placer_init(struct placer *pl, const char *name, bool label_blind, uint64_t seed,
                const struct cluster *cl, int32_t njobs, char *err, size_t errlen);
void placer_fini(struct placer *pl);
/* A job was submitted: fgd counts its request shape. */
void placer_submit(struct placer *pl, const struct job *j);
/* Call at the start of a pass: gpu-clustering recounts the GPU pods on
 * each node from the running jobs when the allocation epoch moved. */
void placer_sync(struct placer *pl, const struct view *v);
/* Call after decide_start succeeded for j on parts (keeps placer_sync's
 * counts current without a recount). */
void placer_started(struct placer *pl, const struct view *v, const struct job *j,
                    const struct alloc_part *parts, int nparts);
/* Places job j on free state f (cl->free or a scratch copy; shares, MIG
 * and the storage pool's admission are judged on the live state). Fills out[] (room for
 * cl->nnodes parts) and returns the part count, 0 when it does not fit. */
int placer_place(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                 const struct job *j, struct alloc_part *out);
/* Snapshots (policy_ops.save / load): what the placer keeps between
 * passes, the requests fgd has seen; the typical pods are rebuilt from
 * them and gpu-clustering's counts recounted at the next sync. load: 0,
 * or -1 with r marked bad. */
void placer_save(const struct placer *pl, struct snapw *w);
int placer_load(struct placer *pl, struct snapr *r);
/* Can the request's storage pool admit it now (capacity and bandwidth, as
 * cluster_check_alloc has it; pools are live state)? */
bool placer_pool_ok(const struct cluster *cl, const struct job_req *r);

#endif
