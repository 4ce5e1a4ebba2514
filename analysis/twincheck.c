/* twincheck — two schedules of one workload compared job for job; see
 * twincheck.h. */
#include "analysis/twincheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbutil.h"

/* qsort has no context argument: the side being sorted by key. */
struct keyed {
	const char *key;
	int64_t i;
};

static int cmp_keyed(const void *p, const void *q)
{
	const struct keyed *x = p, *y = q;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_double(const void *p, const void *q)
{
	double x = *(const double *)p, y = *(const double *)q;
	return (x > y) - (x < y);
}

/* The side's jobs sorted by key; NULL out of memory. */
static struct keyed *by_key(const struct twincheck_job *j, int64_t n)
{
	struct keyed *k = malloc((size_t)(n ? n : 1) * sizeof *k);
	if (!k)
		return NULL;
	for (int64_t i = 0; i < n; i++)
		k[i] = (struct keyed){ j[i].key, i };
	qsort(k, (size_t)n, sizeof *k, cmp_keyed);
	return k;
}

/* The length of the run of equal keys from k[i]. */
static int64_t run_len(const struct keyed *k, int64_t n, int64_t i)
{
	int64_t e = i + 1;
	while (e < n && strcmp(k[e].key, k[i].key) == 0)
		e++;
	return e - i;
}

static int cmp_pair_a(const void *p, const void *q)
{
	const struct twincheck_pair *x = p, *y = q;
	return (x->a > y->a) - (x->a < y->a);
}

/* Matches unique keys into r->pair (submit difference in dstart_s for
 * now); counts the rest. -1 out of memory. */
static int match(const struct twincheck_job *a, int64_t na, const struct twincheck_job *b,
                 int64_t nb, struct twincheck *r)
{
	struct keyed *ka = by_key(a, na), *kb = by_key(b, nb);
	r->pair = malloc((size_t)(na ? na : 1) * sizeof *r->pair);
	if (!ka || !kb || !r->pair) {
		free(ka);
		free(kb);
		return -1;
	}
	int64_t i = 0, k = 0;
	while (i < na || k < nb) {
		int c = i == na ? 1 : k == nb ? -1 : strcmp(ka[i].key, kb[k].key);
		int64_t la = c <= 0 ? run_len(ka, na, i) : 0, lb = c >= 0 ? run_len(kb, nb, k) : 0;
		bool empty = (c <= 0 && !ka[i].key[0]) || (c > 0 && !kb[k].key[0]);
		if (la > 1 || (la == 1 && empty))
			r->dup_a += la;
		if (lb > 1 || (lb == 1 && empty))
			r->dup_b += lb;
		if (!empty && la == 1 && lb != 1)
			r->only_a++;
		if (!empty && lb == 1 && la != 1)
			r->only_b++;
		if (!empty && la == 1 && lb == 1) {
			const struct twincheck_job *x = &a[ka[i].i], *y = &b[kb[k].i];
			if (isnan(x->start_s) || isnan(y->start_s))
				r->unstarted++;
			else
				r->pair[r->matched++] = (struct twincheck_pair){
					.a = ka[i].i, .b = kb[k].i,
					.wait_a_s = x->start_s - x->submit_s, .wait_b_s = y->start_s - y->submit_s,
					.dstart_s = y->submit_s - x->submit_s };
		}
		i += la;
		k += lb;
	}
	free(ka);
	free(kb);
	qsort(r->pair, (size_t)r->matched, sizeof *r->pair, cmp_pair_a);
	return 0;
}

int twincheck_compare(const struct twincheck_job *a, int64_t na, const struct twincheck_job *b,
                      int64_t nb, double bf_interval_s, struct twincheck *r)
{
	memset(r, 0, sizeof *r);
	r->jobs_a = na;
	r->jobs_b = nb;
	r->bf_interval_s = bf_interval_s;
	for (int64_t i = 0; i < na; i++)
		r->preempt_a += a[i].preemptions;
	for (int64_t i = 0; i < nb; i++)
		r->preempt_b += b[i].preemptions;
	if (match(a, na, b, nb, r) < 0)
		goto oom;
	int64_t n = r->matched;
	double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
	double *sa = malloc((size_t)(n ? n : 1) * sizeof *sa);
	double *sb = malloc((size_t)(n ? n : 1) * sizeof *sb);
	if (!v || !sa || !sb) {
		free(v);
		free(sa);
		free(sb);
		goto oom;
	}
	for (int64_t i = 0; i < n; i++)
		v[i] = r->pair[i].dstart_s;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	r->offset_s = n ? report_percentile(v, (size_t)n, 0.5) : NAN;
	double wa = 0, wb = 0, sum = 0;
	int64_t within = 0;
	for (int64_t i = 0; i < n; i++) {
		struct twincheck_pair *p = &r->pair[i];
		sa[i] = a[p->a].start_s;
		sb[i] = b[p->b].start_s;
		p->dstart_s = sb[i] - r->offset_s - sa[i];
		wa += p->wait_a_s;
		wb += p->wait_b_s;
		v[i] = fabs(p->dstart_s);
		sum += v[i];
		within += v[i] <= bf_interval_s;
	}
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	r->wait_mean_a_s = n ? wa / (double)n : NAN;
	r->wait_mean_b_s = n ? wb / (double)n : NAN;
	r->wait_err_pct = n && wa != 0 ? (wb - wa) / wa * 100 : NAN;
	r->dstart_p50_s = n ? report_percentile(v, (size_t)n, 0.5) : NAN;
	r->dstart_p90_s = n ? report_percentile(v, (size_t)n, 0.9) : NAN;
	r->dstart_mean_s = n ? sum / (double)n : NAN;
	r->within_bf = n ? (double)within / (double)n : NAN;
	r->tau_b = twincheck_tau_b(sa, sb, n);
	free(v);
	free(sa);
	free(sb);
	return 0;
oom:
	twincheck_fini(r);
	return -1;
}

void twincheck_fini(struct twincheck *r)
{
	free(r->pair);
	memset(r, 0, sizeof *r);
}

/* Kendall's tau-b, Knight (1966): with the pairs sorted by (x, y), the
 * discordant pairs are the inversions of y, counted by a bottom-up merge
 * sort; equal y are not inversions. */

struct xy {
	double x, y;
};

static int cmp_xy(const void *p, const void *q)
{
	const struct xy *s = p, *t = q;
	if (s->x != t->x)
		return s->x < t->x ? -1 : 1;
	return (s->y > t->y) - (s->y < t->y);
}

/* Sorts y[0..n-1] ascending with tmp's room; returns the exchanges. */
static int64_t merge_count(double *y, double *tmp, int64_t n)
{
	int64_t swaps = 0;
	for (int64_t w = 1; w < n; w *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * w) {
			int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				if (y[j] < y[i]) {
					swaps += mid - i;
					tmp[k++] = y[j++];
				} else {
					tmp[k++] = y[i++];
				}
			}
			while (i < mid)
				tmp[k++] = y[i++];
			while (j < hi)
				tmp[k++] = y[j++];
		}
		memcpy(y, tmp, (size_t)n * sizeof *y);
	}
	return swaps;
}

/* Σ t(t−1)/2 over the runs of equal values of sorted v. */
static double tied_pairs(const double *v, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n;) {
		int64_t e = i + 1;
		while (e < n && v[e] == v[i])
			e++;
		s += (double)(e - i) * (double)(e - i - 1) / 2;
		i = e;
	}
	return s;
}

double twincheck_tau_b(const double *x, const double *y, int64_t n)
{
	if (n < 2)
		return NAN;
	struct xy *p = malloc((size_t)n * sizeof *p);
	double *ys = malloc((size_t)n * sizeof *ys), *tmp = malloc((size_t)n * sizeof *tmp);
	double tau = NAN;
	if (!p || !ys || !tmp)
		goto out;
	for (int64_t i = 0; i < n; i++)
		p[i] = (struct xy){ x[i], y[i] };
	qsort(p, (size_t)n, sizeof *p, cmp_xy);
	double n0 = (double)n * (double)(n - 1) / 2, n1 = 0, n3 = 0;
	for (int64_t i = 0; i < n;) {
		int64_t e = i + 1, f = i + 1;
		while (e < n && p[e].x == p[i].x)
			e++;
		n1 += (double)(e - i) * (double)(e - i - 1) / 2;
		for (int64_t k = i; k < e; k = f) {     /* runs of equal y inside the x run */
			for (f = k + 1; f < e && p[f].y == p[k].y; f++)
				;
			n3 += (double)(f - k) * (double)(f - k - 1) / 2;
		}
		i = e;
	}
	for (int64_t i = 0; i < n; i++)
		ys[i] = p[i].y;
	double swaps = (double)merge_count(ys, tmp, n);
	double n2 = tied_pairs(ys, n);
	if (n0 > n1 && n0 > n2)
		tau = (n0 - n1 - n2 + n3 - 2 * swaps) / sqrt((n0 - n1) * (n0 - n2));
out:
	free(p);
	free(ys);
	free(tmp);
	return tau;
}
