/* workload — the job table a trace reader fills (see trace.h). */
#include "traces/trace.h"

#include <assert.h>
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
	for (int k = 0; k < WL_NKIND; k++) {
		for (int32_t i = 0; i < w->names[k].n; i++)
			free(w->names[k].v[i]);
		free(w->names[k].v);
		strset_fini(&w->names[k].set);
	}
	free(w->job_gpu_type);
	free(w->job_name);
	workload_init(w);
}

static const char *str_key(const void *ctx, int32_t i)
{
	return ((const struct workload *)ctx)->str[i];
}

/* Appends a copy of s to the table v[0 .. *n) (room for *cap) and to set:
 * its index, or -1 on ENOMEM. */
static int32_t table_push(char ***v, int32_t *n, int32_t *cap, struct strset *set, const char *s)
{
	if (*n == INT32_MAX)
		return -1;
	if (*n == *cap) {
		int32_t ncap = *cap ? (*cap > INT32_MAX / 2 ? INT32_MAX : *cap * 2) : 8;
		char **nv = realloc(*v, (size_t)ncap * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	if (!((*v)[*n] = strdup(s)))
		return -1;
	if (strset_add(set, (*v)[*n], *n)) {
		free((*v)[*n]);
		return -1;
	}
	return (*n)++;
}

int workload_intern(struct workload *w, const char *s)
{
	int32_t k = strset_find(&w->strset, s, str_key, w);
	if (k >= 0)
		return k;
	if (w->nstr >= 32000)
		return -1;   /* job_req keeps index + 1 in an int16_t */
	return table_push(&w->str, &w->nstr, &w->capstr, &w->strset, s);
}

/* ---- names (trace.h: struct wl_names) ---------------------------------- */

const char *wl_name_kind_str(enum wl_name_kind k)
{
	static const char *const kind[WL_NKIND] = {
		[WL_USER] = "user", [WL_ACCOUNT] = "account", [WL_PARTITION] = "partition",
		[WL_QOS] = "qos", [WL_GPU_TYPE] = "gpu_type", [WL_JOB_NAME] = "job_name",
	};
	return (unsigned)k < WL_NKIND ? kind[k] : "?";
}

const char *workload_name(const struct workload *w, enum wl_name_kind k, int32_t idx)
{
	if ((unsigned)k >= WL_NKIND || idx < 0 || idx >= w->names[k].n)
		return NULL;
	return w->names[k].v[idx];
}

static const char *name_key(const void *ctx, int32_t i)
{
	return ((const struct wl_names *)ctx)->v[i];
}

int32_t workload_name_add(struct workload *w, enum wl_name_kind k, const char *s)
{
	assert((unsigned)k < WL_NKIND && s);
	struct wl_names *t = &w->names[k];
	int32_t i = strset_find(&t->set, s, name_key, t);
	return i >= 0 ? i : table_push(&t->v, &t->n, &t->cap, &t->set, s);
}

bool workload_has_names(const struct workload *w)
{
	for (int k = 0; k < WL_NKIND; k++)
		if (w->names[k].n > 0)
			return true;
	return false;
}

/* The per-job table of kind k (WL_GPU_TYPE or WL_JOB_NAME), or NULL. */
static int32_t **job_table(struct workload *w, enum wl_name_kind k)
{
	return k == WL_GPU_TYPE ? &w->job_gpu_type : k == WL_JOB_NAME ? &w->job_name : NULL;
}

static const char *job_text(const struct workload *w, enum wl_name_kind k, const int32_t *t, int32_t i)
{
	return t && i >= 0 && i < w->n ? workload_name(w, k, t[i]) : NULL;
}

const char *workload_job_gpu_type(const struct workload *w, int32_t i)
{
	return job_text(w, WL_GPU_TYPE, w->job_gpu_type, i);
}

const char *workload_job_name(const struct workload *w, int32_t i)
{
	return job_text(w, WL_JOB_NAME, w->job_name, i);
}

int workload_job_set(struct workload *w, enum wl_name_kind k, int32_t i, const char *s)
{
	int32_t **t = job_table(w, k);
	assert(t && i >= 0 && i < w->n);
	if (!*t) {
		if (!s || !*s)
			return 0;   /* none, and no job has one yet */
		if (!(*t = malloc((size_t)w->cap * sizeof **t)))
			return -1;
		for (int32_t m = 0; m < w->cap; m++)
			(*t)[m] = -1;
	}
	int32_t ix = s && *s ? workload_name_add(w, k, s) : -1;
	if (s && *s && ix < 0)
		return -1;
	(*t)[i] = ix;
	return 0;
}

/* Job dst's GPU type and job name become those of src. */
static void side_copy(struct workload *w, int32_t dst, int32_t src)
{
	if (w->job_gpu_type)
		w->job_gpu_type[dst] = w->job_gpu_type[src];
	if (w->job_name)
		w->job_name[dst] = w->job_name[src];
}

static int32_t side_get(const int32_t *t, int32_t i)
{
	return t ? t[i] : -1;
}

static void side_set(int32_t *t, int32_t i, int32_t v)
{
	if (t)
		t[i] = v;
}

int workload_pick(struct workload *w, const int32_t *from, int32_t n)
{
	size_t cap = (size_t)(n > 0 ? n : 1);
	struct job *nj = malloc(cap * sizeof *nj);
	struct job_truth *nt = malloc(cap * sizeof *nt);
	int32_t *ng = w->job_gpu_type ? malloc(cap * sizeof *ng) : NULL;
	int32_t *nn = w->job_name ? malloc(cap * sizeof *nn) : NULL;
	if (!nj || !nt || (w->job_gpu_type && !ng) || (w->job_name && !nn)) {
		free(nj);
		free(nt);
		free(ng);
		free(nn);
		return -1;
	}
	for (int32_t k = 0; k < n; k++) {
		assert(from[k] >= 0 && from[k] < w->n);
		nj[k] = w->jobs[from[k]];
		nt[k] = w->truth[from[k]];
		side_set(ng, k, side_get(w->job_gpu_type, from[k]));
		side_set(nn, k, side_get(w->job_name, from[k]));
	}
	free(w->jobs);
	free(w->truth);
	free(w->job_gpu_type);
	free(w->job_name);
	w->jobs = nj;
	w->truth = nt;
	w->job_gpu_type = ng;
	w->job_name = nn;
	w->n = n;
	w->cap = (int32_t)cap;
	return 0;
}

/* ---- the job table ------------------------------------------------------- */

/* Grows an int32 table beside the jobs to ncap entries (a NULL one stays NULL). */
static int grow_side(int32_t **t, int64_t ncap)
{
	if (!*t)
		return 0;
	int32_t *nt = realloc(*t, (size_t)ncap * sizeof *nt);
	if (!nt)
		return -1;
	*t = nt;
	return 0;
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
	if (grow_side(&w->job_gpu_type, ncap) || grow_side(&w->job_name, ncap))
		return -1;
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
	side_set(w->job_gpu_type, w->n, -1);
	side_set(w->job_name, w->n, -1);
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
		int32_t g = side_get(w->job_gpu_type, i), nm = side_get(w->job_name, i);
		int32_t k = i;
		while (k > 0 && w->jobs[k - 1].submit_us > j.submit_us) {
			w->jobs[k] = w->jobs[k - 1];
			w->truth[k] = w->truth[k - 1];
			side_copy(w, k, k - 1);
			k--;
		}
		w->jobs[k] = j;
		w->truth[k] = t;
		side_set(w->job_gpu_type, k, g);
		side_set(w->job_name, k, nm);
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
		int32_t g = side_get(w->job_gpu_type, start), nm = side_get(w->job_name, start);
		int32_t k = start;
		for (;;) {
			int32_t src = keys[k].idx;
			keys[k].idx = k;
			if (src == start) {
				w->jobs[k] = j;
				w->truth[k] = t;
				side_set(w->job_gpu_type, k, g);
				side_set(w->job_name, k, nm);
				break;
			}
			w->jobs[k] = w->jobs[src];
			w->truth[k] = w->truth[src];
			side_copy(w, k, src);
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
