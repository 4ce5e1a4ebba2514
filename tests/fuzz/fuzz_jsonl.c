/* fuzz_jsonl — the JSON Lines reader and writer (traces/jsonl.c), with the
 * round trip: a trace read and written reads back as the same jobs (strings
 * compared by content), and writing that again gives the same bytes. */
#include "tests/fuzz/fuzz.h"
#include "traces/trace.h"

/* The string a request names (index + 1), "" for none. */
static const char *ref(const struct workload *w, int k1)
{
	return k1 > 0 && k1 <= w->nstr ? w->str[k1 - 1] : "";
}

static void same_jobs(const struct workload *a, const struct workload *b)
{
	if (a->n != b->n)
		fz_fail("%d jobs read, %d after the round trip", a->n, b->n);
	for (int32_t i = 0; i < a->n; i++) {
		const struct job *x = &a->jobs[i], *y = &b->jobs[i];
		const struct job_req *r = &x->req, *q = &y->req;
		if (x->submit_us != y->submit_us || x->trace_id != y->trace_id || x->cls != y->cls ||
		    x->tenant != y->tenant || x->group != y->group || x->queue != y->queue ||
		    x->walltime_us != y->walltime_us || x->ckpt_every_us != y->ckpt_every_us ||
		    a->truth[i].run_us != b->truth[i].run_us || a->truth[i].fails != b->truth[i].fails)
			fz_fail("job %d: its fields differ after the round trip", i);
		if (r->nodes != q->nodes || r->cores != q->cores || r->gpus != q->gpus ||
		    r->mem_mib != q->mem_mib || r->gpu_mem_mib != q->gpu_mem_mib ||
		    r->gpu_models != q->gpu_models || r->gpu_milli != q->gpu_milli || r->mig_g != q->mig_g ||
		    r->precision != q->precision || r->flags != q->flags || r->io_mbps != q->io_mbps ||
		    r->storage_gib != q->storage_gib)
			fz_fail("job %d: its request differs after the round trip", i);
		if (strcmp(ref(a, r->plane), ref(b, q->plane)) || strcmp(ref(a, r->pool), ref(b, q->pool)) ||
		    strcmp(ref(a, r->sel_req), ref(b, q->sel_req)) ||
		    strcmp(ref(a, r->sel_pref), ref(b, q->sel_pref)))
			fz_fail("job %d: a named string differs after the round trip", i);
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fz_fail("cannot read %s", path);
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096)))
			abort();
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fz_file(0, data, size, ".jsonl");
	const char *out1 = fz_path(1, "-1.jsonl"), *out2 = fz_path(2, "-2.jsonl");
	char err[1024] = "";
	struct workload a, b, c;
	if (trace_jsonl_read(in, &a, err, sizeof err) != 0) {
		fz_names(err, in);
		return 0;
	}
	if (trace_jsonl_write(out1, &a, err, sizeof err) != 0)
		fz_fail("a trace read cannot be written: %s", err);
	if (trace_jsonl_read(out1, &b, err, sizeof err) != 0)
		fz_fail("a trace written cannot be read: %s", err);
	same_jobs(&a, &b);
	if (trace_jsonl_write(out2, &b, err, sizeof err) != 0)
		fz_fail("the round trip cannot be written: %s", err);
	size_t n1, n2;
	char *t1 = slurp(out1, &n1), *t2 = slurp(out2, &n2);
	if (n1 != n2 || memcmp(t1, t2, n1) != 0)
		fz_fail("writing the round trip gives other bytes");
	/* Line by line, as live mode's submissions arrive. */
	workload_init(&c);
	for (char *l = t1, *e; l < t1 + n1; l = e + 1) {
		e = memchr(l, '\n', (size_t)(t1 + n1 - l));
		if (!e)
			break;
		if (strncmp(l, "{\"header\"", 9) != 0 &&
		    trace_jsonl_parse_job("fuzz", 1, l, (size_t)(e - l), NULL, &c, err, sizeof err) != 0)
			fz_fail("a written line does not parse alone: %s", err);
	}
	workload_sort(&c);
	if (c.n != a.n)
		fz_fail("%d jobs parsed line by line, %d read", c.n, a.n);
	free(t1);
	free(t2);
	workload_free(&a);
	workload_free(&b);
	workload_free(&c);
	unlink(out1);
	unlink(out2);
	return 0;
}
