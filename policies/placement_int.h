/* placement_int — what the files of the placer share (placement.c: the
 * placer and the rules every strategy keeps; placement_ops.c: the
 * strategies' scores, topology's gang choice and the table): the candidate
 * order and the heap sort over candidate indexes, and the takes and
 * gpushare requests that both the placing code and the scores build.
 * Static inline, so that the placing loops keep them inlined as they were
 * in one file. Internal to policies/placement*.c: the interface is
 * policies/placement.h. */
#ifndef HL_PLACEMENT_INT_H
#define HL_PLACEMENT_INT_H

#include <stdint.h>

#include "policies/gpushare.h"
#include "policies/placement.h"

#define MIG_COMPUTE 7         /* compute slices of a MIG card: a slice's milli-GPU for the gs scores */

/* Negative when a ranks before b: more preferred-label terms, higher keys,
 * lower node. */
static inline int cand_rank(const struct place_cand *a, const struct place_cand *b)
{
	if (a->pref != b->pref)
		return a->pref > b->pref ? -1 : 1;
	for (int k = 0; k < 2; k++)
		if (a->key[k] != b->key[k])
			return a->key[k] > b->key[k] ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

typedef int (*idx_cmp)(const struct placer *pl, int32_t a, int32_t b);

static inline void sift(const struct placer *pl, int32_t *a, int32_t n, int32_t i, idx_cmp cmp)
{
	for (;;) {
		int32_t l = 2 * i + 1, m = i;
		if (l < n && cmp(pl, a[l], a[m]) > 0)
			m = l;
		if (l + 1 < n && cmp(pl, a[l + 1], a[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		int32_t t = a[i];
		a[i] = a[m];
		a[m] = t;
		i = m;
	}
}

/* Heap sort (in place, no allocation: glibc's qsort may malloc). */
static inline void sort_idx(const struct placer *pl, int32_t *a, int32_t n, idx_cmp cmp)
{
	for (int32_t i = n / 2 - 1; i >= 0; i--)
		sift(pl, a, n, i, cmp);
	for (int32_t e = n - 1; e > 0; e--) {
		int32_t t = a[0];
		a[0] = a[e];
		a[e] = t;
		sift(pl, a, e, 0, cmp);
	}
}

/* The whole-card / core take of a share on card g: the card, if idle. */
static inline struct place_take share_take(const struct cluster *cl, const struct nodefree *nf, int node, int g,
                                    const struct job *j)
{
	(void)cl;
	(void)node;
	return (struct place_take){ .cores = j->req.cores, .mem_mib = j->req.mem_mib,
	                            .gpus = (int32_t)((nf->gpu_free >> g) & 1u), .milli = j->req.gpu_milli };
}

static inline struct gs_req gs_req_of(const struct job *j, const struct place_take *t)
{
	struct gs_req q = { .cpu_milli = (int64_t)t->cores * 1000, .mem_mib = t->mem_mib };
	if (t->milli > 0) {
		q.num_gpu = 1;
		q.gpu_milli = t->milli;
	} else if (t->mig) {
		q.num_gpu = 1;
		q.gpu_milli = j->req.mig_g * HL_MILLI / MIG_COMPUTE;
	} else if (t->gpus > 0) {
		q.num_gpu = t->gpus;
		q.gpu_milli = HL_MILLI;
	}
	return q;
}

#endif
