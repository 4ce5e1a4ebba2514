/* conservative_int — what the files of the conservative policy share
 * (conservative.c: the policy, its passes and the earliest start of a job;
 * conservative_profile.c: the availability profile): the policy's state,
 * struct cons, with the profile's segments, node timelines and node groups,
 * and the profile's entry points. Internal to policies/conservative*.c:
 * nothing else includes it (the policy's interface is policies/policy.h).
 * The calls go one way: conservative.c calls into conservative_profile.c,
 * which calls only the layers below (placement, the view, the cluster). */
#ifndef HL_CONSERVATIVE_INT_H
#define HL_CONSERVATIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "policies/placement.h"
#include "policies/policy.h"

/* A segment's id is its place in the order of creation (segments are
 * only added during a pass); cons.spos maps ids to positions. */
struct seg {
	simtime t;
	int64_t cores, gpus;      /* aggregate free */
	int32_t id;
};

/* One node's timeline: its free state from e[k].t until e[k+1].t (the
 * last entry until the profile's end); e[0].t is the pass's now. An entry
 * starts where a segment does: that segment's id is sid. */
struct tlent {
	simtime t;
	int32_t sid;
	int32_t zero;             /* 0: no padding, for tl_same's memcmp */
	struct nodefree f;
};

#define TL_RUNS 8   /* good runs cons_gang_could() takes at a time */

struct timeline {
	struct tlent *e;
	int32_t n, cap;
	int32_t cur;              /* earliest(): the entry in force at the start tried */
	uint64_t ver;             /* changes whenever e does (never wraps in a run) */
	uint64_t sver;            /* the version lo_ / hi_ are for */
	int32_t lo_cores, hi_cores;   /* the least and most free cores and memory */
	int64_t lo_mem, hi_mem;       /* over the entries (tl_span) */
};

/* Nodes with equal timelines (and service state) form a group: a plain
 * gang's count of nodes that could goes over groups, weighted by their
 * size, a window's minimum is computed once per group, and a reservation
 * that gives the nodes of one group the same part computes the first
 * node's new timeline and copies it to the others. Groups are built at the
 * first plain gang of a pass and kept as reservations change timelines.
 * Without a power model only (power can block single nodes between two
 * jobs of a pass). */
struct tgroup {
	uint64_t h;               /* hash of the timeline */
	int32_t head, count;      /* first member, members */
	int32_t act;              /* position in cons.act; -1 when empty */
};

/* A plain gang (sizes only: no GPUs, labels, plane, pool or NUMA rule)
 * that found no start within the window this pass. */
struct nofit {
	int32_t nodes, cores;
	int64_t mem_mib;
	simtime wall;
};

#define NOFIT_MAX 16

struct cons {
	int32_t max_test;
	simtime window_us;
	int32_t nnodes;
	struct alloc_part *parts;
	struct timeline *tl;      /* nnodes */
	struct nodefree *min;     /* nnodes: the intersection being tested */
	struct seg *segs;         /* in time order */
	int32_t nsegs, cap_segs;
	int32_t *ids;
	int32_t *could;           /* cons_gang_could(): cap_segs + 1 */
	int32_t *spos;            /* cap_segs: position of the segment by id */
	uint64_t gen;             /* timeline versions are drawn from it */
	bool grouped;             /* groups are built for this pass */
	struct tgroup *grp;       /* ngrp, of which nact non-empty, listed in act */
	struct nodefree *gmin;    /* capgrp: cons_window_min() per group */
	int32_t ngrp, capgrp, nact;
	int32_t *act;             /* nnodes */
	int32_t *gindex;          /* group by hash, open addressing; gmask + 1 slots */
	int32_t gmask;
	int32_t *gof, *gnext, *gprev;   /* nnodes: a node's group and its neighbours in it */
	bool count;               /* this pass keeps counts only (conservative.c) */
	struct placer pl;
	/* The pass in progress, and what the last one leaves for the next
	 * (see "Passes that change nothing" in conservative.c). */
	int32_t next;             /* the pending entry it looks at next */
	int32_t tested;
	struct nofit nf[NOFIT_MAX];
	int nnf;
	bool clean;               /* no start, no failed placement now, no shortage */
	bool kept;                /* the profile and the fields below are the last pass's */
	uint64_t kept_epoch;
	simtime kept_limit;
	int32_t *kept_pend;       /* the pending entries it looked at: id, or ~id when not pending */
	int32_t cap_pend;
	struct nodefree *kept_free;   /* nnodes: cl->free */
	uint8_t *kept_svc;            /* nnodes: cl->svc */
	/* Only while someone listens to notes (decide_noting), else NULL: per
	 * pending entry, what the pass gave it (conservative.c cons_notes). */
	uint8_t *nhow;
	simtime *nat, *nend;          /* its reservation: start and end */
};

/* Builds the pass's profile from the view: segment 0 now with the free
 * state, the running jobs' ends (a job past its estimate at now + 1), and,
 * unless p->count, the node timelines. -1 when memory runs out. */
int cons_profile_build(struct cons *p, const struct view *v);
/* Inserts a segment at time t after position `after`, with its aggregates;
 * its position, or -1 when memory runs out. */
int cons_seg_insert(struct cons *p, int after, simtime t);
/* Takes an allocation's cores and whole cards from a segment's aggregates. */
void cons_seg_take(struct seg *s, const struct alloc_part *parts, int n);
/* Takes (give: gives back) the parts from their nodes' timelines from the
 * start of segment kf to that of kt (-1: to the end). -1 when memory runs
 * out. */
int cons_apply(struct cons *p, const struct cluster *cl, const struct alloc_part *parts, int n, int32_t kf,
               int32_t kt, bool give);
/* p->min (grouped: p->gmin per group, and p->min only when per_node) = each
 * node's least free state over [from, to); `several`: more than one segment. */
void cons_window_min(struct cons *p, simtime from, simtime to, bool several, bool per_node);
/* For a gang r of `wall`: into p->could, per segment, the change in the
 * count of nodes that could hold a part of r from that segment's start. */
void cons_gang_could(struct cons *p, const struct cluster *cl, const struct job_req *r, simtime wall);

#endif
