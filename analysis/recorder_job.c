/* recorder_job — the results file's job table: one row per job, written in
 * id order (see rec_hook_job_end). Part of the recorder
 * (analysis/recorder_int.h). */
#include "analysis/recorder_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mig.h"

/* What a job's row takes from its allocation and from the moment it
 * ended: the engine releases the allocation right after the hook. A row
 * held back (r->order) keeps it, with the allocation's node ids. */
struct job_end {
	int64_t cores, gpus, mem;
	simtime held;
	const char *gpu_model;   /* the catalog's name, or NULL */
	const char *mig;         /* the MIG profile's name, or NULL */
	int32_t milli;           /* a GPU share in thousandths, or 0 */
	int32_t nparts;
	int32_t ids[];           /* held rows only: the allocation's node ids */
};

/* ids: where the node ids go (a held row's e->ids), or NULL; in the same
 * walk over the parts as the sums. */
static void job_end_of(const struct sim *s, const struct job *j, const struct alloc_part *parts,
                       int nparts, struct job_end *e, int32_t *ids)
{
	int64_t cores = 0, gpus = 0, mem = 0;
	for (int i = 0; i < nparts; i++) {
		cores += parts[i].cores;
		mem += parts[i].mem_mib;
		if (parts[i].gpus)
			gpus += hl_popcount64(parts[i].gpus);
		if (ids)
			ids[i] = parts[i].node;
	}
	e->cores = cores;
	e->gpus = gpus;
	e->mem = mem;
	e->nparts = nparts;
	e->held = j->held_us + (j->hold_since >= 0 ? s->now - j->hold_since : 0);
	const struct node *n0 = nparts ? &s->cl.nodes[parts[0].node] : NULL;
	e->gpu_model = n0 && e->gpus > 0 && n0->gpu_model >= 0 && n0->gpu_model < s->cl.cat.ngpus
	               ? s->cl.cat.gpus[n0->gpu_model].name : NULL;
	e->milli = nparts ? parts[0].milli : 0;
	e->mig = NULL;
	if (nparts && e->milli <= 0 && parts[0].mig_profile >= 0 && parts[0].gpus && s->cl.gpu &&
	    __builtin_ctzll(parts[0].gpus) < n0->mig_cards && s->cl.gpu[n0->gpu0 + __builtin_ctzll(parts[0].gpus)].mig)
		e->mig = s->cl.gpu[n0->gpu0 + __builtin_ctzll(parts[0].gpus)].mig->card->profiles[parts[0].mig_profile].name;
}

/* One job row: the node ids from parts (a row written as the job ends) or
 * from e->ids (a held row). */
static void write_job_row(struct recorder *r, const struct sim *s, const struct job *j,
                          const struct job_end *e, const struct alloc_part *parts)
{
	bool ended = j->end_us >= 0 && j->end_us != SIMTIME_INF;
	struct sqlbatch_val *v = rec_next_row(r, &r->jobs);
	if (!v)
		return;
	/* The node ids for complete_jobs: the node list is the writer thread's work. */
	if (e->nparts > 0) {
		int32_t *ids = sqlbatch_aux(&r->jobs, &v[JC_NODE_LIST], (size_t)e->nparts * sizeof *ids);
		if (!ids) {
			rec_failf(r, "job %lld: out of memory", (long long)j->num);
			return;
		}
		if (parts)
			for (int i = 0; i < e->nparts; i++)
				ids[i] = parts[i].node;
		else
			memcpy(ids, e->ids, (size_t)e->nparts * sizeof *ids);
	}
	sqlbatch_int(&v[JC_NODES], e->nparts);
	sqlbatch_int(&v[JC_CORES], e->cores);
	sqlbatch_int(&v[JC_GPUS], e->gpus);
	sqlbatch_int(&v[JC_MEM], e->mem);
	int k = 0;
	sqlbatch_int(&v[k++], j->num);
	sqlbatch_int(&v[k++], j->trace_id);
	sqlbatch_static(&v[k++], job_class_name((enum job_class)j->cls));
	sqlbatch_int(&v[k++], j->tenant);
	sqlbatch_int(&v[k++], j->group);
	if (j->queue >= 0)
		sqlbatch_int(&v[k], j->queue);
	k++;
	sqlbatch_static(&v[k++], job_state_name((enum job_state)j->state));
	k = JC_MEM + 1;
	sqlbatch_int(&v[k++], job_req_cores(&j->req));
	sqlbatch_int(&v[k++], job_req_gpus(&j->req));
	k++;   /* node_list: complete_jobs */
	sqlbatch_int(&v[k++], j->preemptions);
	val_time_us(&v[k++], j->submit_us);
	val_time_us(&v[k++], j->start_us);
	val_time_us(&v[k++], ended ? j->end_us : -1);
	val_time_us(&v[k++], j->walltime_us);
	sqlbatch_static(&v[k++], j->reason != END_NONE ? end_reason_name((enum end_reason)j->reason) : NULL);
	sqlbatch_static(&v[k++], e->gpu_model);
	char share[32] = "";
	if (e->milli > 0)
		snprintf(share, sizeof share, "%dm", e->milli);
	else if (e->mig)
		snprintf(share, sizeof share, "%s", e->mig);
	sqlbatch_text(&r->jobs, &v[k++], share[0] ? share : NULL, strlen(share));
	sqlbatch_real(&v[k++], j->gpu_s);
	sqlbatch_real(&v[k++], j->core_s);
	sqlbatch_real(&v[k++], j->lost_gpu_s);
	sqlbatch_real(&v[k++], j->ckpt_s);
	sqlbatch_real(&v[k++], simtime_to_s(e->held));
	sqlbatch_static(&v[k++], job_hold_name((enum hold_reason)j->hold_why));
	sqlbatch_int(&v[k++], j->restarts);
	val_real_if(&v[k++], s->cl.pw != NULL, j->energy_j);
	val_real_if(&v[k++], s->cl.pw != NULL, j->energy_cost);
	if (j->qos >= 0)
		sqlbatch_int(&v[k], j->qos);
	k++;
	assert(k == JOB_NCOL);
}

/* A held row's blob: the job_end with its node ids, then (copy_held) a
 * copy of the job, aligned. */
static size_t held_job_at(int nparts)
{
	size_t at = sizeof(struct job_end) + (size_t)nparts * sizeof(int32_t);
	return (at + _Alignof(struct job) - 1) / _Alignof(struct job) * _Alignof(struct job);
}

void recorder_copy_held(struct recorder *r)
{
	r->copy_held = true;
}

/* r->order's emit: a held row, now that the rows of all lower job numbers
 * are written (key: job.num, which is the engine's index unless ended jobs
 * left its table, when the blob has the job's copy). */
static void emit_held_job(void *ctx, int64_t num, void *blob)
{
	struct recorder *r = ctx;
	if (r->failed)
		return;
	const struct job_end *e = blob;
	const struct job *j = r->copy_held ? (const struct job *)((const char *)blob + held_job_at(e->nparts))
	                                   : &r->sim->jobs[num];
	write_job_row(r, r->sim, j, e, NULL);
}

/* A job's row is written in id order (analysis/rowstash.h): at once when
 * the rows of all lower ids are, else held until they are. The job's own
 * fields are read when the row is written: they do not change once it
 * has ended. */
void rec_hook_job_end(void *ctx, const struct sim *s, const struct job *j)
{
	struct recorder *r = ctx;
	if (r->failed)
		return;
	const struct alloc_part *parts = NULL;
	int nparts = j->nparts > 0 ? j->nparts : 0;
	if (nparts > 0) {
		assert((uint64_t)j->parts + (uint64_t)nparts <= s->cl.pool.n);
		parts = s->cl.pool.p + j->parts;
	}
	if (!rowstash_due(&r->order, j->num)) {
		size_t bytes = r->copy_held ? held_job_at(nparts) + sizeof *j
		                            : sizeof(struct job_end) + (size_t)nparts * sizeof(int32_t);
		struct job_end *e = rowstash_alloc(&r->order, bytes);
		if (e) {
			job_end_of(s, j, parts, nparts, e, e->ids);
			if (r->copy_held)
				memcpy((char *)e + held_job_at(nparts), j, sizeof *j);
			if (rowstash_put(&r->order, j->num, e, bytes) == 0)
				return;
			rowstash_free(&r->order, e, bytes);   /* held already (ended twice): written now, SQLite says so */
		}
	}
	struct job_end e;
	job_end_of(s, j, parts, nparts, &e, NULL);
	write_job_row(r, s, j, &e, parts);
	rowstash_advance(&r->order, j->num);
}

/* The rows held back: at most HOLD_B_PER_JOB bytes a job of the run (and
 * at least HOLD_MIN_BYTES), over a span of at most HOLD_SPAN ids. Held
 * longest are the rows that follow a long job's id: at 30,000 nodes of
 * bench/scale.json (2.8 M jobs) 32 MiB leaves 17 rows out of order and
 * 16 MiB 17,000; at 100,000 nodes (9.5 M) 32 MiB left 96,523, 12 bytes a
 * job (109 MiB) 17, with a ring of 2^21 slots (32 MiB) beside them. A job
 * that outlives the bound (an inference replica that runs from the start
 * to the end) costs one row written out of order. */
#define HOLD_MIN_BYTES ((size_t)32 << 20)
#define HOLD_B_PER_JOB 12
#define HOLD_SPAN ((int64_t)1 << 21)

void rec_jobs_init(struct recorder *r, int64_t njobs)
{
	size_t bytes = njobs > 0 ? (size_t)njobs * HOLD_B_PER_JOB : 0;
	rowstash_fini(&r->order);
	rowstash_init(&r->order, bytes > HOLD_MIN_BYTES ? bytes : HOLD_MIN_BYTES, HOLD_SPAN, emit_held_job,
	              r);
}

void rec_jobs_drain(struct recorder *r)
{
	rowstash_drain(&r->order);
}
