/* workload — the job table a trace reader fills (see trace.h). */
#include "traces/trace.h"

#include <stdlib.h>
#include <string.h>

enum { WL_INITIAL = 1024 };

void workload_init(struct workload *w)
{
	memset(w, 0, sizeof *w);
	w->max_procs = -1;
	w->max_nodes = -1;
	w->unix_start = -1;
}

void workload_free(struct workload *w)
{
	free(w->jobs);
	free(w->truth);
	for (int32_t i = 0; i < w->nstr; i++)
		free(w->str[i]);
	free(w->str);
	strset_fini(&w->strset);
	workload_init(w);
}

static const char *str_key(const void *ctx, int32_t i)
{
	return ((const struct workload *)ctx)->str[i];
}

int workload_intern(struct workload *w, const char *s)
{
	int32_t k = strset_find(&w->strset, s, str_key, w);
	if (k >= 0)
		return k;
	if (w->nstr >= 32000)
		return -1;   /* job_req keeps index + 1 in an int16_t */
	if (w->nstr == w->capstr) {
		int32_t ncap = w->capstr ? w->capstr * 2 : 8;
		char **np = realloc(w->str, (size_t)ncap * sizeof *np);
		if (!np)
			return -1;
		w->str = np;
		w->capstr = ncap;
	}
	if (!(w->str[w->nstr] = strdup(s)))
		return -1;
	if (strset_add(&w->strset, w->str[w->nstr], w->nstr)) {
		free(w->str[w->nstr]);
		return -1;
	}
	return w->nstr++;
}

static int grow(struct workload *w)
{
	if (w->cap >= INT32_MAX)
		return -1;
	int64_t ncap = w->cap ? (int64_t)w->cap * 2 : WL_INITIAL;
	if (ncap > INT32_MAX)
		ncap = INT32_MAX;
	struct job *nj = realloc(w->jobs, (size_t)ncap * sizeof *nj);
	if (!nj)
		return -1;
	w->jobs = nj;
	struct job_truth *nt = realloc(w->truth, (size_t)ncap * sizeof *nt);
	if (!nt)
		return -1; /* jobs grew, cap did not: still consistent */
	w->truth = nt;
	w->cap = (int32_t)ncap;
	return 0;
}

int workload_add(struct workload *w, const struct job *j, const struct job_truth *t)
{
	if (w->n == w->cap && grow(w) != 0)
		return -1;
	w->jobs[w->n] = *j;
	w->jobs[w->n].id = w->n;
	w->truth[w->n] = *t;
	w->n++;
	return 0;
}

struct key {
	simtime submit_us;
	int32_t idx;
};

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi);
 * on equal keys the left run's first. */
static void merge_runs(const struct key *src, struct key *dst, int64_t lo, int64_t mid, int64_t hi)
{
	int64_t i = lo, k = mid, o = lo;
	while (i < mid && k < hi)
		dst[o++] = src[k].submit_us < src[i].submit_us ? src[k++] : src[i++];
	while (i < mid)
		dst[o++] = src[i++];
	while (k < hi)
		dst[o++] = src[k++];
}

/* The end of the run in order that starts at lo. */
static int64_t run_end(const struct key *k, int64_t lo, int64_t n)
{
	int64_t i = lo + 1;
	while (i < n && k[i].submit_us >= k[i - 1].submit_us)
		i++;
	return i;
}

/* Natural merge sort of keys by submit time (equal keys keep their order):
 * each pass merges neighbouring runs already in order. A synthetic
 * workload is a few runs (about one a class), so its 10 M jobs take a few
 * passes rather than 24; a table in no order starts from runs of about
 * two, as a plain merge sort does. */
static void merge_sort(struct key *a, struct key *tmp, int32_t n)
{
	struct key *src = a, *dst = tmp;
	for (;;) {
		int64_t lo = 0, merged = 0;
		while (lo < n) {
			int64_t mid = run_end(src, lo, n);
			if (mid == n) {
				if (lo > 0)
					memcpy(dst + lo, src + lo, (size_t)(n - lo) * sizeof *src);
				break;
			}
			int64_t hi = run_end(src, mid, n);
			merge_runs(src, dst, lo, mid, hi);
			merged++;
			lo = hi;
		}
		if (merged == 0)
			break;   /* src was one run: sorted */
		struct key *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
}

/* Stable insertion sort in place: the fallback when memory is short. */
static void insertion_sort(struct workload *w)
{
	for (int32_t i = 1; i < w->n; i++) {
		struct job j = w->jobs[i];
		struct job_truth t = w->truth[i];
		int32_t k = i;
		while (k > 0 && w->jobs[k - 1].submit_us > j.submit_us) {
			w->jobs[k] = w->jobs[k - 1];
			w->truth[k] = w->truth[k - 1];
			k--;
		}
		w->jobs[k] = j;
		w->truth[k] = t;
	}
}

/* Moves the jobs so that position k holds the one that was at keys[k].idx,
 * in place, a cycle of the permutation at a time (each job moves once; the
 * keys are used up). A sorted copy of the table instead would double the
 * memory the jobs take while it is made: at 10 M jobs 2.3 GB more, fresh
 * pages the kernel must clear. */
static void permute(struct workload *w, struct key *keys)
{
	for (int32_t start = 0; start < w->n; start++) {
		if (keys[start].idx == start)
			continue;
		struct job j = w->jobs[start];
		struct job_truth t = w->truth[start];
		int32_t k = start;
		for (;;) {
			int32_t src = keys[k].idx;
			keys[k].idx = k;
			if (src == start) {
				w->jobs[k] = j;
				w->truth[k] = t;
				break;
			}
			w->jobs[k] = w->jobs[src];
			w->truth[k] = w->truth[src];
			k = src;
		}
	}
}

static void renumber(struct workload *w)
{
	for (int32_t i = 0; i < w->n; i++)
		w->jobs[i].id = i;
}

void workload_sort(struct workload *w)
{
	int32_t i = 1;
	while (i < w->n && w->jobs[i - 1].submit_us <= w->jobs[i].submit_us)
		i++;
	if (i >= w->n) { /* already sorted: the usual case for real logs */
		renumber(w);
		return;
	}
	size_t n = (size_t)w->n;
	struct key *keys = malloc(2 * n * sizeof *keys);
	if (!keys) {
		/* No memory for the fast path: sort in place, slowly but correctly. */
		insertion_sort(w);
		renumber(w);
		return;
	}
	for (int32_t k = 0; k < w->n; k++)
		keys[k] = (struct key){ w->jobs[k].submit_us, k };
	merge_sort(keys, keys + n, w->n);
	permute(w, keys);
	free(keys);
	renumber(w);
}
