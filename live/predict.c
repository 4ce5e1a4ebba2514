/* predict — run times from the history of actual against requested time
 * (predict.h, docs/forecast.md "The predictor"). */
#include "live/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pred_init(struct pred *p, int32_t min_n)
{
	memset(p, 0, sizeof *p);
	p->min_n = min_n > 0 ? min_n : PRED_MIN_N;
}

void pred_fini(struct pred *p)
{
	free(p->r);
	memset(p, 0, sizeof *p);
}

/* The ring of (tenant, cls), or NULL; with add, made when missing (NULL
 * on ENOMEM). Tenants and classes are few: a linear search. */
static struct pred_ring *ring_of(struct pred *p, int32_t tenant, int32_t cls, bool add)
{
	for (int32_t k = 0; k < p->n; k++)
		if (p->r[k].tenant == tenant && p->r[k].cls == cls)
			return &p->r[k];
	if (!add)
		return NULL;
	if (p->n == p->cap) {
		int32_t cap = p->cap ? 2 * p->cap : 16;
		struct pred_ring *r = realloc(p->r, (size_t)cap * sizeof *r);
		if (!r)
			return NULL;
		p->r = r;
		p->cap = cap;
	}
	struct pred_ring *r = &p->r[p->n++];
	memset(r, 0, sizeof *r);
	r->tenant = tenant;
	r->cls = cls;
	return r;
}

static const struct pred_ring *find(const struct pred *p, int32_t tenant, int32_t cls)
{
	return ring_of((struct pred *)p, tenant, cls, false);
}

int pred_add(struct pred *p, int32_t tenant, int32_t cls, double run_s, double limit_s)
{
	if (!(run_s >= 0) || !isfinite(run_s))
		return 0;
	bool lim = limit_s > 0 && isfinite(limit_s);
	const int32_t key[4][2] = { { tenant, cls }, { tenant, -1 }, { -1, cls }, { -1, -1 } };
	for (int k = 0; k < 4; k++) {
		struct pred_ring *r = ring_of(p, key[k][0], key[k][1], true);
		if (!r)
			return -1;
		r->seen++;
		if (lim) {
			double x = run_s / limit_s;
			r->ratio[r->next] = x > 1 ? 1 : x;
			r->next = (r->next + 1) % PRED_RING;
			if (r->n < PRED_RING)
				r->n++;
		} else {
			r->abs_s[r->nextabs] = run_s;
			r->nextabs = (r->nextabs + 1) % PRED_RING;
			if (r->nabs < PRED_RING)
				r->nabs++;
		}
	}
	return 0;
}

static const struct pred_ring *level(const struct pred *p, int32_t tenant, int32_t cls, bool has_limit,
                                     enum pred_level *lvl)
{
	const int32_t key[4][2] = { { tenant, cls }, { tenant, -1 }, { -1, cls }, { -1, -1 } };
	for (int k = 0; k < 4; k++) {
		const struct pred_ring *r = find(p, key[k][0], key[k][1]);
		if (r && (has_limit ? r->n : r->nabs) >= p->min_n) {
			*lvl = (enum pred_level)k;
			return r;
		}
	}
	*lvl = PRED_LIMIT;
	return NULL;
}

double pred_draw(const struct pred *p, int32_t tenant, int32_t cls, double limit_s, double elapsed_s, uint64_t *rng,
                 enum pred_level *lvl)
{
	bool lim = limit_s > 0 && isfinite(limit_s);
	enum pred_level l;
	const struct pred_ring *r = level(p, tenant, cls, lim, &l);
	if (lvl)
		*lvl = l;
	if (elapsed_s < 0)
		elapsed_s = 0;
	if (!r)
		return lim ? limit_s : (elapsed_s > PRED_NO_LIMIT_S ? 2 * elapsed_s : PRED_NO_LIMIT_S);
	const double *v = lim ? r->ratio : r->abs_s;
	int32_t n = lim ? r->n : r->nabs;
	double scale = lim ? limit_s : 1;
	/* Only the samples that outlast what the job has run already. */
	int32_t alive = 0;
	for (int32_t k = 0; k < n; k++)
		alive += v[k] * scale > elapsed_s;
	if (alive == 0) {
		/* Past every sample: it runs as long again as it has, give or
		 * take (e × (1 + 2u), u uniform in [0, 1)), within its limit. */
		double u = (double)(pred_rand(rng) >> 11) / 9007199254740992.0;
		double t = elapsed_s * (1 + 2 * u) + 1;
		return lim && t > limit_s ? limit_s : t;
	}
	int32_t pick = (int32_t)(pred_rand(rng) % (uint64_t)alive);
	for (int32_t k = 0; k < n; k++)
		if (v[k] * scale > elapsed_s && pick-- == 0)
			return v[k] * scale;
	return lim ? limit_s : PRED_NO_LIMIT_S;   /* not reached */
}

enum pred_level pred_level_of(const struct pred *p, int32_t tenant, int32_t cls, bool has_limit, int32_t *n,
                              double *mean, double *sd)
{
	enum pred_level l;
	const struct pred_ring *r = level(p, tenant, cls, has_limit, &l);
	*n = 0;
	*mean = has_limit ? 1 : NAN;
	*sd = 0;
	if (!r)
		return l;
	const double *v = has_limit ? r->ratio : r->abs_s;
	*n = has_limit ? r->n : r->nabs;
	double s = 0, s2 = 0;
	for (int32_t k = 0; k < *n; k++)
		s += v[k];
	*mean = s / *n;
	for (int32_t k = 0; k < *n; k++)
		s2 += (v[k] - *mean) * (v[k] - *mean);
	*sd = *n > 1 ? sqrt(s2 / (*n - 1)) : 0;
	return l;
}

const char *pred_level_name(enum pred_level l)
{
	static const char *const name[PRED_NLEVEL] = { "tenant and class", "tenant", "class", "all jobs",
	                                               "time limit (too few samples)" };
	return (unsigned)l < PRED_NLEVEL ? name[l] : "?";
}
