/* slurm_track — what the Slurm executor keeps of each job, by the job's
 * id in the state (live_sid), never by the engine's index: ended jobs
 * leave the engine's tables (EXEC_COMPACT), the Slurm job of one that
 * left may still be open (its cancel on its way), and a restart learns
 * the open Slurm jobs (the state's xref rows) before the recording is
 * replayed, when the engine holds no job yet. A small open-addressing
 * hash of pointers (entries never move while they are kept): it holds the
 * jobs the engine holds that the executor has touched, and those whose
 * Slurm job is not yet seen final; sx_track_prune drops the others. */
#include "live/exec/slurm_glue.h"

#include <stdint.h>
#include <stdlib.h>

static uint32_t slot_of(int64_t key, int32_t cap)
{
	return (uint32_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (uint32_t)(cap - 1);
}

struct sx_jobtrack *sx_track_find(const struct sx_exec *x, int64_t key)
{
	if (x->capjt == 0)
		return NULL;
	for (uint32_t i = slot_of(key, x->capjt);; i = (i + 1) & (uint32_t)(x->capjt - 1)) {
		struct sx_jobtrack *t = x->jt[i];
		if (!t || t->key == key)
			return t;
	}
}

static int grow(struct sx_exec *x)
{
	int32_t cap = x->capjt ? 2 * x->capjt : 64;
	struct sx_jobtrack **n = calloc((size_t)cap, sizeof *n);
	if (!n)
		return -1;
	for (int32_t k = 0; k < x->capjt; k++) {
		struct sx_jobtrack *t = x->jt[k];
		if (!t)
			continue;
		uint32_t i = slot_of(t->key, cap);
		while (n[i])
			i = (i + 1) & (uint32_t)(cap - 1);
		n[i] = t;
	}
	free(x->jt);
	x->jt = n;
	x->capjt = cap;
	return 0;
}

struct sx_jobtrack *sx_track_get(struct sx_exec *x, int64_t key)
{
	struct sx_jobtrack *t = sx_track_find(x, key);
	if (t)
		return t;
	/* At most half full: probes stay short. */
	if ((x->njt + 1) * 2 > x->capjt && grow(x))
		return NULL;
	if (!(t = malloc(sizeof *t)))
		return NULL;
	*t = (struct sx_jobtrack){ .key = key, .sid = -1, .attempt = -1 };
	uint32_t i = slot_of(key, x->capjt);
	while (x->jt[i])
		i = (i + 1) & (uint32_t)(x->capjt - 1);
	x->jt[i] = t;
	x->njt++;
	return t;
}

void sx_track_drop(struct sx_exec *x, int64_t key)
{
	if (x->capjt == 0)
		return;
	uint32_t mask = (uint32_t)(x->capjt - 1), i = slot_of(key, x->capjt);
	while (x->jt[i] && x->jt[i]->key != key)
		i = (i + 1) & mask;
	if (!x->jt[i])
		return;
	free(x->jt[i]);
	x->jt[i] = NULL;
	x->njt--;
	/* Backward shift: each entry after the hole that may sit in it moves
	 * up, so that no probe stops short of its entry. */
	for (uint32_t j = (i + 1) & mask; x->jt[j]; j = (j + 1) & mask) {
		uint32_t h = slot_of(x->jt[j]->key, x->capjt);
		if (((j - h) & mask) >= ((j - i) & mask)) {
			x->jt[i] = x->jt[j];
			x->jt[j] = NULL;
			i = j;
		}
	}
}

struct sx_jobtrack *sx_tj(struct live *L, int32_t id)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *t = sx_track_get(x, live_sid(L, id));
	if (t)
		return t;
	/* Out of memory: a scratch entry, so that no caller dereferences NULL;
	 * what is written to it is lost (the job is seen again next tick). */
	live_logl(L, LIVE_ERROR, "job %lld: out of memory tracking its Slurm job", (long long)live_sid(L, id));
	x->spare = (struct sx_jobtrack){ .key = live_sid(L, id), .sid = -1, .attempt = -1 };
	return &x->spare;
}

void sx_track_prune(struct live *L)
{
	struct sx_exec *x = L->xctx;
	int64_t taken = live_njobs(L);
	for (int32_t k = 0; k < x->capjt; k++) {
		struct sx_jobtrack *t = x->jt[k];
		/* A job that left the engine (ended) whose Slurm job is seen final;
		 * a job the replay has not taken yet is kept (its xref row). */
		while (t && !t->open && t->key < taken && live_index(L, t->key) < 0) {
			sx_track_drop(x, t->key);
			t = x->jt[k];   /* the backward shift may have moved another one here */
		}
	}
}

void sx_track_free(struct sx_exec *x)
{
	for (int32_t k = 0; k < x->capjt; k++)
		free(x->jt[k]);
	free(x->jt);
	x->jt = NULL;
	x->capjt = x->njt = 0;
}
