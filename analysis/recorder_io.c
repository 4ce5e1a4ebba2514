/* recorder_io — the recorder's rows on their way into the file: the buffers
 * handed to the writer thread, sealed for the audit log and inserted there,
 * and the first error of either thread. Part of the recorder
 * (analysis/recorder_int.h). */
#include "analysis/recorder_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "analysis/audit.h"

void rec_failf(struct recorder *r, const char *fmt, ...)
{
	pthread_mutex_lock(&r->errmu);
	if (!atomic_load(&r->failed)) {
		int n = snprintf(r->err, sizeof r->err, "%s: ", r->path);
		if (n >= 0 && (size_t)n < sizeof r->err) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
			va_end(ap);
		}
		atomic_store(&r->failed, true);
	}
	pthread_mutex_unlock(&r->errmu);
}

static const char *const batch_what[] = {
	[T_EVENT] = "writing event rows", [T_JOB] = "writing job rows",
	[T_SAMPLE] = "writing sample rows", [T_RACK] = "writing rack sample rows",
};

/* The audit log's share of a buffer of rows: event rows become records of
 * the chain, the rows of the other tables are sealed as they go. */
static void audit_rows(struct recorder *r, const struct sqlbatch *b, const struct sqlbatch_buf *buf)
{
	for (int i = 0; i < buf->rows && !atomic_load(&r->failed); i++) {
		const struct sqlbatch_val *v = buf->v + (size_t)i * (size_t)b->ncol;
		int rc;
		switch (b->tag) {
		case T_EVENT:
			rc = audit_writer_record(r->audit, v[0].u.i, v[1].u.i, v[2].u.s,
			                         v[3].type == SB_INT ? (int32_t)v[3].u.i : -1,
			                         v[4].type == SB_INT ? (int32_t)v[4].u.i : -1,
			                         v[5].type == SB_STATIC ? v[5].u.s : NULL,
			                         v[6].type == SB_TEXT ? buf->text + v[6].u.t.off : NULL,
			                         v[6].type == SB_TEXT ? v[6].u.t.len : 0);
			break;
		case T_JOB:
			rc = audit_writer_row(r->audit, r->st_job, v[0].u.i, buf, v, b->ncol);
			break;
		case T_SAMPLE:
			rc = audit_writer_row(r->audit, r->st_sample, ++r->nsamples, buf, v, b->ncol);
			break;
		default:
			rc = audit_writer_row(r->audit, r->st_rack, ++r->nrack_samples, buf, v, b->ncol);
		}
		if (rc < 0)
			rec_failf(r, "%s", audit_writer_error(r->audit));
	}
}

/* Fills in, on the writer thread, the job's node list from the node ids
 * that write_job_row copied to the row's SB_AUX value. */
static void complete_jobs(struct recorder *r, const struct sqlbatch *b, struct sqlbatch_buf *buf)
{
	for (int i = 0; i < buf->rows; i++) {
		struct sqlbatch_val *v = buf->v + (size_t)i * (size_t)b->ncol;
		if (v[JC_NODE_LIST].type != SB_AUX || !r->sim)
			continue;
		const int32_t *ids = (const int32_t *)(buf->aux + v[JC_NODE_LIST].u.t.off);
		int n = (int)(v[JC_NODE_LIST].u.t.len / sizeof *ids);
		size_t len = 0;
		const char *list = hostlist_format(&r->hosts, &r->sim->cl, ids, n, &len);
		if (!list) {
			rec_failf(r, "job %" PRId64 ": node list: out of memory", v[0].u.i);
			return;
		}
		sqlbatch_buf_text(buf, &v[JC_NODE_LIST], list, len);
	}
}

/* Seals and inserts one buffer of rows (on the writer thread, or at the end). */
void rec_write_buf(struct recorder *r, struct sqlbatch *b, struct sqlbatch_buf *buf)
{
	if (atomic_load(&r->failed))
		return;
	if (b->tag == T_JOB)
		complete_jobs(r, b, buf);
	audit_rows(r, b, buf);
	char err[256];
	if (!atomic_load(&r->failed) && sqlbatch_write(b, buf, err, sizeof err) < 0)
		rec_failf(r, "%s: %s", batch_what[b->tag], err);
}

/* The writer thread's work item: a full buffer. */
static void consume(void *ctx, struct workq_item *it)
{
	struct recorder *r = ctx;
	struct sqlbatch_buf *buf = (struct sqlbatch_buf *)it;
	struct sqlbatch *b = buf->owner;
	rec_write_buf(r, b, buf);
	sqlbatch_give(b, buf);
	pagedrop_tick(&r->pd);
}

/* The next row of a batch, or NULL with the error kept. A full buffer goes
 * to the writer thread first. */
struct sqlbatch_val *rec_next_row(struct recorder *r, struct sqlbatch *b)
{
	if (sqlbatch_full(b)) {
		struct sqlbatch_buf *buf = sqlbatch_take(b);
		if (!buf) {
			rec_failf(r, "%s: out of memory", batch_what[b->tag]);
			return NULL;
		}
		buf->item.fn = consume;
		workq_push(&r->wq, &buf->item);
	}
	return sqlbatch_row(b);
}

