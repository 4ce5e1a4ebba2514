/* compare — policy A/B over seeds with paired intervals. See compare.h; the
 * method is in docs/compare.md and the metric definitions in
 * docs/results.md ("Report metrics"): keep the three in step. */
#include "analysis/pparams.h"
#include "analysis/compare.h"

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "analysis/dbutil.h"

int compare_metric_higher_better(const char *name)
{
	return metric_direction(name) == METRIC_HIGHER;
}

int compare_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return COMPARE_TEXT;
	if (strcmp(name, "json") == 0)
		return COMPARE_JSON;
	if (strcmp(name, "html") == 0)
		return COMPARE_HTML;
	return -1;
}

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_NO_DIFF: return "no significant difference";
	case COMPARE_BETTER: return "better";
	case COMPARE_WORSE: return "worse";
	case COMPARE_NA: break;
	}
	return "n/a";
}

const char *compare_method_name(enum compare_method m)
{
	return m == COMPARE_CI_T ? "t" : m == COMPARE_CI_BOOTSTRAP ? "bootstrap" : "-";
}

static int failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Seeds are decimal text; all-digit seeds compare as numbers. */
static int seed_cmp(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int da = la > 0 && strspn(a, "0123456789") == la;
	int db = lb > 0 && strspn(b, "0123456789") == lb;
	if (da && db && la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

/* ---- one side ---------------------------------------------------------------- */

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int cmp_run(const void *x, const void *y)
{
	return seed_cmp(((const struct compare_run *)x)->seed, ((const struct compare_run *)y)->seed);
}

void compare_side_fini(struct compare_side *s)
{
	for (size_t i = 0; i < s->nrun; i++)
		compare_run_fini(&s->run[i]);
	free(s->run);
	free(s->dir);
	free(s->scenario_json);
	memset(s, 0, sizeof *s);
}

/* The whole file, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t got;
	while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, got, m);
	fclose(f);
	if (!m || fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int compare_side_load(const char *dir, const struct metric_window *w, struct compare_side *s,
                      char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	char **names = NULL;
	size_t nnames = 0, cap = 0;
	int ret = -1;
	DIR *d = opendir(dir);
	if (!d)
		return failf(err, errlen, "%s: cannot open the directory: %s", dir, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 3 || strcmp(e->d_name + len - 3, ".db") != 0 || e->d_name[0] == '.')
			continue;
		if (nnames == cap) {
			cap = cap ? cap * 2 : 32;
			char **p = realloc(names, cap * sizeof *p);
			if (!p)
				goto nomem;
			names = p;
		}
		if (!(names[nnames] = strdup(e->d_name)))
			goto nomem;
		nnames++;
	}
	if (nnames == 0) {
		failf(err, errlen, "%s: no run databases (*.db) in the directory", dir);
		goto out_names;
	}
	qsort(names, nnames, sizeof *names, cmp_str);
	if (!(s->dir = strdup(dir)) || !(s->run = calloc(nnames, sizeof *s->run)))
		goto nomem;
	for (size_t i = 0; i < nnames; i++) {
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(plen);
		if (!path)
			goto nomem;
		snprintf(path, plen, "%s/%s", dir, names[i]);
		int rc = compare_run_load(path, w, &s->run[s->nrun], err, errlen);
		free(path);
		if (rc < 0)
			goto out_names;
		s->nrun++;
	}
	qsort(s->run, s->nrun, sizeof *s->run, cmp_run);
	char sj[4200];
	snprintf(sj, sizeof sj, "%s/scenario.json", dir);
	s->scenario_json = slurp(sj);
	for (size_t i = 1; i < s->nrun; i++)
		if (seed_cmp(s->run[i - 1].seed, s->run[i].seed) == 0) {
			failf(err, errlen, "%s and %s both hold seed %s", s->run[i - 1].path,
			      s->run[i].path, s->run[i].seed);
			goto out_names;
		}
	ret = 0;
	goto out_names;
nomem:
	failf(err, errlen, "%s: out of memory", dir);
out_names:
	closedir(d);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (ret < 0)
		compare_side_fini(s);
	return ret;
}

/* ---- statistics -------------------------------------------------------------- */

void compare_mean_sd(const double *d, size_t n, double *mean, double *sd)
{
	*mean = n ? gsl_stats_mean(d, 1, n) : NAN;
	*sd = n > 1 ? gsl_stats_sd_m(d, 1, n, *mean) : NAN;
}

double compare_skewness(const double *d, size_t n)
{
	if (n < 2)
		return 0;
	double mean, sd;
	compare_mean_sd(d, n, &mean, &sd);
	if (!(sd > 0))
		return 0;
	return gsl_stats_skew_m_sd(d, 1, n, mean, sd);
}

int compare_t_interval(const double *d, size_t n, double level, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n < 2 || !(level > 0 && level < 1))
		return -1;
	gsl_set_error_handler_off();
	double mean, sd;
	compare_mean_sd(d, n, &mean, &sd);
	double t = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(n - 1));
	if (!isfinite(t))
		return -1;
	double half = t * sd / sqrt((double)n);
	*lo = mean - half;
	*hi = mean + half;
	return 0;
}

int compare_bootstrap_interval(const double *d, size_t n, double level, size_t nboot,
                               unsigned long seed, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n < 1 || nboot < 1)
		return -1;
	double *means = malloc(nboot * sizeof *means);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int ret = -1;
	if (!means || !rng)
		goto out;
	gsl_rng_set(rng, seed);
	for (size_t b = 0; b < nboot; b++) {
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += d[gsl_rng_uniform_int(rng, n)];
		means[b] = sum / (double)n;
	}
	qsort(means, nboot, sizeof *means, cmp_double);
	*lo = report_percentile(means, nboot, 0.5 - level / 2);
	*hi = report_percentile(means, nboot, 0.5 + level / 2);
	ret = 0;
out:
	gsl_rng_free(rng);
	free(means);
	return ret;
}

struct absd {
	double v;       /* |d_i| */
	int pos;        /* d_i > 0 */
};

static int cmp_absd(const void *x, const void *y)
{
	return cmp_double(&((const struct absd *)x)->v, &((const struct absd *)y)->v);
}

double compare_wilcoxon(const double *d, size_t n, double *w_plus, size_t *nonzero, int *exact)
{
	double wp = 0, p = NAN;
	size_t m = 0;
	int ex = 1;
	struct absd *x = malloc((n ? n : 1) * sizeof *x);
	int *rank2 = malloc((n ? n : 1) * sizeof *rank2);   /* doubled midranks: integers */
	double *count = NULL;
	if (!x || !rank2)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i])) {
			x[m].v = fabs(d[i]);
			x[m].pos = d[i] > 0;
			m++;
		}
	if (n == 0)
		goto out;
	if (m == 0) {
		p = 1;
		goto out;
	}
	qsort(x, m, sizeof *x, cmp_absd);
	double tie_sum = 0;     /* sum of t^3 - t over the groups of ties */
	int64_t w2 = 0;         /* 2 W+ */
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && x[j + 1].v == x[i].v)
			j++;
		/* ranks i+1 .. j+1 share the midrank (i + j + 2) / 2 */
		for (size_t k = i; k <= j; k++) {
			rank2[k] = (int)(i + j + 2);
			if (x[k].pos)
				w2 += rank2[k];
		}
		double t = (double)(j - i + 1);
		tie_sum += t * t * t - t;
		i = j + 1;
	}
	wp = (double)w2 / 2;
	double dm = (double)m;
	if (m <= COMPARE_WILCOXON_EXACT_MAX) {
		/* count[s]: sign patterns whose positive doubled ranks sum to s. */
		size_t total2 = m * (m + 1);
		if (!(count = calloc(total2 + 1, sizeof *count)))
			goto out;
		count[0] = 1;
		for (size_t k = 0; k < m; k++)
			for (size_t s = total2; s >= (size_t)rank2[k]; s--)
				count[s] += count[s - (size_t)rank2[k]];
		double le = 0, ge = 0;
		for (size_t s = 0; s <= total2; s++) {
			if ((int64_t)s <= w2)
				le += count[s];
			if ((int64_t)s >= w2)
				ge += count[s];
		}
		double all = ldexp(1.0, (int)m);
		p = fmin(1.0, 2 * fmin(le, ge) / all);
	} else {
		ex = 0;
		double mu = dm * (dm + 1) / 4;
		double var = dm * (dm + 1) * (2 * dm + 1) / 24 - tie_sum / 48;
		if (!(var > 0)) {
			p = 1;
			goto out;
		}
		double z = fmax(fabs(wp - mu) - 0.5, 0) / sqrt(var);
		p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(z));
	}
out:
	free(count);
	free(rank2);
	free(x);
	if (w_plus)
		*w_plus = wp;
	if (nonzero)
		*nonzero = m;
	if (exact)
		*exact = ex;
	return p;
}

enum compare_verdict compare_verdict_of(double lo, double hi, int higher_better)
{
	if (isnan(lo) || isnan(hi))
		return COMPARE_NA;
	if (lo > 0)
		return higher_better ? COMPARE_BETTER : COMPARE_WORSE;
	if (hi < 0)
		return higher_better ? COMPARE_WORSE : COMPARE_BETTER;
	return COMPARE_NO_DIFF;
}

int compare_stat_compute(struct compare_stat *st, const char *m, const double *a,
                         const double *b, size_t n, double level)
{
	memset(st, 0, sizeof *st);
	snprintf(st->metric, sizeof st->metric, "%s", m);
	st->mean_a = st->mean_b = st->mean_diff = st->sd_diff = st->rel_change = NAN;
	st->t_lo = st->t_hi = st->boot_lo = st->boot_hi = st->lo = st->hi = st->p = NAN;
	st->method = COMPARE_CI_NONE;
	st->verdict = COMPARE_NA;
	double *d = malloc(3 * (n ? n : 1) * sizeof *d);
	if (!d)
		return -1;
	double *pa = d + (n ? n : 1), *pb = pa + (n ? n : 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i])) {
			pa[k] = a[i];
			pb[k] = b[i];
			d[k] = b[i] - a[i];
			k++;
		}
	st->n = k;
	int ret = 0;
	if (k == 0)
		goto out;
	st->mean_a = gsl_stats_mean(pa, 1, k);
	st->mean_b = gsl_stats_mean(pb, 1, k);
	compare_mean_sd(d, k, &st->mean_diff, &st->sd_diff);
	st->rel_change = st->mean_a != 0 ? st->mean_b / st->mean_a - 1 : NAN;
	st->skewness = compare_skewness(d, k);
	st->p = compare_wilcoxon(d, k, &st->w_plus, &st->w_n, &st->w_exact);
	if (k < 2)
		goto out;
	compare_t_interval(d, k, level, &st->t_lo, &st->t_hi);
	if (compare_bootstrap_interval(d, k, level, COMPARE_BOOT_N, COMPARE_BOOT_SEED,
	                               &st->boot_lo, &st->boot_hi) < 0) {
		ret = -1;
		goto out;
	}
	if (fabs(st->skewness) > COMPARE_SKEW_LIMIT) {
		st->method = COMPARE_CI_BOOTSTRAP;
		st->lo = st->boot_lo;
		st->hi = st->boot_hi;
	} else {
		st->method = COMPARE_CI_T;
		st->lo = st->t_lo;
		st->hi = st->t_hi;
	}
	st->verdict = compare_verdict_of(st->lo, st->hi, compare_metric_higher_better(m));
out:
	free(d);
	return ret;
}

/* ---- comparison -------------------------------------------------------------- */

static int add_warning(struct compare_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_warning(struct compare_result *res, const char *fmt, ...)
{
	char **w = realloc(res->warning, (res->nwarning + 1) * sizeof *w);
	if (!w)
		return -1;
	res->warning = w;
	va_list ap;
	va_start(ap, fmt);
	int rc = vasprintf(&w[res->nwarning], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	res->nwarning++;
	return 0;
}

/* Seeds as "1-5,7,9-10" (numeric runs collapsed) into a malloc'd string. */
char *compare_seed_list(const char *const *seed, size_t n)
{
	size_t cap = 64, len = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		char *end;
		unsigned long long v = strtoull(seed[i], &end, 10);
		int num = *seed[i] && !*end;
		while (num && j + 1 < n) {
			unsigned long long w = strtoull(seed[j + 1], &end, 10);
			if (!*seed[j + 1] || *end || w != v + (j + 1 - i))
				break;
			j++;
		}
		char item[96];
		int il = j > i ? snprintf(item, sizeof item, "%s%s-%s", i ? "," : "", seed[i], seed[j])
		               : snprintf(item, sizeof item, "%s%s", i ? "," : "", seed[i]);
		if (il < 0)
			il = 0;
		if (len + (size_t)il + 1 > cap) {
			cap = (len + (size_t)il + 1) * 2;
			char *p = realloc(out, cap);
			if (!p) {
				free(out);
				return NULL;
			}
			out = p;
		}
		memcpy(out + len, item, (size_t)il + 1);
		len += (size_t)il;
		i = j + 1;
	}
	return out;
}

/* One metric's statistics over the pairs, into res->stat[q]. */
static int stat_one(struct compare_result *res, const struct compare_run **ra,
                    const struct compare_run **rb, size_t q, const char *name, double level)
{
	double *va = res->pa + q * res->npair, *vb = res->pb + q * res->npair;
	for (size_t k = 0; k < res->npair; k++) {
		va[k] = metric_get(&ra[k]->m, name);
		vb[k] = metric_get(&rb[k]->m, name);
	}
	if (compare_stat_compute(&res->stat[q], name, va, vb, res->npair, level) < 0)
		return -1;
	res->nstat++;
	if (res->stat[q].n < 2 &&
	    add_warning(res, "%s is defined in only %zu pair%s: no interval", name, res->stat[q].n,
	                res->stat[q].n == 1 ? "" : "s") < 0)
		return -1;
	return 0;
}

/* The side's policy, or "mixed" when its runs differ. */
const char *compare_side_policy(const struct compare_side *s)
{
	if (s->nrun == 0)
		return "-";
	for (size_t i = 1; i < s->nrun; i++)
		if (strcmp(s->run[i].policy, s->run[0].policy) != 0)
			return "mixed";
	return s->run[0].policy;
}

void compare_result_fini(struct compare_result *res)
{
	free(res->pair_seed);
	free(res->only_a);
	free(res->only_b);
	free(res->stat);
	for (size_t i = 0; i < res->nwarning; i++)
		free(res->warning[i]);
	free(res->warning);
	for (size_t i = 0; i < res->ndiffers; i++)
		free(res->differs[i]);
	free(res->differs);
	free(res->pa);
	free(res->pb);
	memset(res, 0, sizeof *res);
}

size_t compare_default_metrics(const struct metric_set *s, const char **names, size_t max)
{
	static const char *const head[] = { "mean_wait", "p95_wait", "mean_jct", "mean_bsld",
		"core_util", "gpu_util", "makespan", "killed", "mean_wait{class=training}",
		"mean_wait{class=inference}", "mean_wait{class=batch}", "mean_wait{class=dev}",
		"it_energy_kwh", "slo_violation_s", NULL };
	size_t n = 0;
	for (int i = 0; head[i] && n < max; i++)
		if (!isnan(metric_get(s, head[i])))
			names[n++] = head[i];
	return n;
}

static int add_differs(struct compare_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_differs(struct compare_result *res, const char *fmt, ...)
{
	char **w = realloc(res->differs, (res->ndiffers + 1) * sizeof *w);
	if (!w)
		return -1;
	res->differs = w;
	va_list ap;
	va_start(ap, fmt);
	int rc = vasprintf(&w[res->ndiffers], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	res->ndiffers++;
	return 0;
}

/* The side's value of a run field when every run agrees, else "mixed". */
static const char *side_field(const struct compare_side *s, size_t off)
{
	if (s->nrun == 0)
		return "-";
	const char *v0 = *(char *const *)((const char *)&s->run[0] + off);
	for (size_t i = 1; i < s->nrun; i++) {
		const char *v = *(char *const *)((const char *)&s->run[i] + off);
		if ((v0 == NULL) != (v == NULL) || (v0 && strcmp(v0, v) != 0))
			return "mixed";
	}
	return v0 ? v0 : "-";
}

/* Every scalar of a JSON document as "path=value" lines, sorted. */
static void flatten(json_t *j, char *path, size_t len, char ***out, size_t *n)
{
	size_t pl = strlen(path);
	if (json_is_object(j)) {
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v) {
			snprintf(path + pl, len - pl, ".%s", k);
			flatten(v, path, len, out, n);
		}
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v) {
			snprintf(path + pl, len - pl, "[%zu]", i);
			flatten(v, path, len, out, n);
		}
	} else {
		char *val = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15)), *line;
		char **p = realloc(*out, (*n + 1) * sizeof *p);
		if (val && p && asprintf(&line, "%s=%s", path, val) >= 0) {
			*out = p;
			p[(*n)++] = line;
		} else if (p) {
			*out = p;
		}
		free(val);
	}
	path[pl] = '\0';
}

static int cmp_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* What differs between the two sides' scenario.json (sweep points, plan
 * candidates): at most 6 paths, "$.policy: \"easy\" -> \"conservative\"". */
static int scenario_differs(struct compare_result *res)
{
	json_t *ja = json_loads(res->a->scenario_json, 0, NULL), *jb = json_loads(res->b->scenario_json, 0, NULL);
	char **la = NULL, **lb = NULL, path[1024] = "$";
	size_t na = 0, nb = 0, shown = 0, more = 0;
	int ret = 0;
	if (ja && jb) {
		flatten(ja, path, sizeof path, &la, &na);
		flatten(jb, path, sizeof path, &lb, &nb);
		if (na)
			qsort(la, na, sizeof *la, cmp_line);
		if (nb)
			qsort(lb, nb, sizeof *lb, cmp_line);
		size_t i = 0, k = 0;
		while (ret == 0 && (i < na || k < nb)) {
			const char *x = i < na ? la[i] : NULL, *y = k < nb ? lb[k] : NULL;
			size_t px = x ? strcspn(x, "=") : 0, py = y ? strcspn(y, "=") : 0;
			int c = !x ? 1 : !y ? -1 : strncmp(x, y, px > py ? px : py);
			if (c == 0 && strcmp(x, y) == 0) {
				i++;
				k++;
				continue;
			}
			if (shown == 6) {
				more++;
			} else if (c == 0) {
				ret = add_differs(res, "%.*s: %s -> %s", (int)px, x, x + px + 1, y + py + 1);
				shown++;
			} else if (c < 0) {
				ret = add_differs(res, "%.*s: %s -> (absent)", (int)px, x, x + px + 1);
				shown++;
			} else {
				ret = add_differs(res, "%.*s: (absent) -> %s", (int)py, y, y + py + 1);
				shown++;
			}
			if (c <= 0)
				i++;
			if (c >= 0)
				k++;
		}
		if (ret == 0 && more)
			ret = add_differs(res, "and %zu more scenario settings", more);
	}
	for (size_t i = 0; i < na; i++)
		free(la[i]);
	for (size_t i = 0; i < nb; i++)
		free(lb[i]);
	free(la);
	free(lb);
	json_decref(ja);
	json_decref(jb);
	return ret;
}

/* The labels: what differs between A and B. */
static int build_differs(struct compare_result *res)
{
	static const struct { const char *what; size_t off; } fields[] = {
		{ "scenario", offsetof(struct compare_run, scenario) },
		{ "policy", offsetof(struct compare_run, policy) },
		{ "policy parameters", offsetof(struct compare_run, policy_params) },
		{ "cluster", offsetof(struct compare_run, cluster) },
	};
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
		const char *x = side_field(res->a, fields[f].off), *y = side_field(res->b, fields[f].off);
		if (strcmp(x, y) == 0)
			continue;
		if (fields[f].off == offsetof(struct compare_run, policy_params)) {
			char d[1024];   /* only those that differ */
			pparams_diff(x, y, d, sizeof d);
			if (d[0] && add_differs(res, "%s: %s", fields[f].what, d) < 0)
				return -1;
		} else if (add_differs(res, "%s: %s -> %s", fields[f].what, x, y) < 0) {
			return -1;
		}
	}
	if (res->a->scenario_json && res->b->scenario_json && scenario_differs(res) < 0)
		return -1;
	return 0;
}

int compare_build(const struct compare_side *a, const struct compare_side *b,
                  const char *const *metrics, size_t nmetric, double level,
                  struct compare_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	res->a = a;
	res->b = b;
	res->level = level;
	const struct compare_run **ra = NULL, **rb = NULL;
	char *list = NULL;
	const char *dflt[32];
	size_t na = a->nrun, nb = b->nrun, cap = na < nb ? na : nb;
	ra = malloc((cap ? cap : 1) * sizeof *ra);
	rb = malloc((cap ? cap : 1) * sizeof *rb);
	res->pair_seed = malloc((cap ? cap : 1) * sizeof *res->pair_seed);
	res->only_a = malloc((na ? na : 1) * sizeof *res->only_a);
	res->only_b = malloc((nb ? nb : 1) * sizeof *res->only_b);
	if (!ra || !rb || !res->pair_seed || !res->only_a || !res->only_b)
		goto nomem;

	/* Both sides are sorted by seed: merge. */
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : seed_cmp(a->run[i].seed, b->run[j].seed);
		if (c < 0) {
			res->only_a[res->nonly_a++] = a->run[i++].seed;
		} else if (c > 0) {
			res->only_b[res->nonly_b++] = b->run[j++].seed;
		} else {
			ra[res->npair] = &a->run[i];
			rb[res->npair] = &b->run[j];
			res->pair_seed[res->npair++] = a->run[i].seed;
			i++;
			j++;
		}
	}
	if (res->npair < 2) {
		failf(err, errlen, "%s and %s have %zu seed%s in common; an interval needs at least 2 "
		      "pairs (run both policies with the same --seeds)", a->dir, b->dir, res->npair,
		      res->npair == 1 ? "" : "s");
		goto fail;
	}

	if (res->nonly_a) {
		if (!(list = compare_seed_list(res->only_a, res->nonly_a)) ||
		    add_warning(res, "seeds only in A (left out): %s", list) < 0)
			goto nomem;
		free(list);
		list = NULL;
	}
	if (res->nonly_b) {
		if (!(list = compare_seed_list(res->only_b, res->nonly_b)) ||
		    add_warning(res, "seeds only in B (left out): %s", list) < 0)
			goto nomem;
		free(list);
		list = NULL;
	}
	/* The same workload is the same job table, whatever the scenario is called. */
	for (size_t k = 0; k < res->npair; k++)
		if (ra[k]->workload != rb[k]->workload) {
			if (add_warning(res, "seed %s: the job tables of A and B differ (submit times or "
			                "requests): the pairs do not share their workloads, so the "
			                "differences include the workload's own", res->pair_seed[k]) < 0)
				goto nomem;
			break;
		}
	if (strcmp(compare_side_policy(a), "mixed") == 0 &&
	    add_warning(res, "the runs in A use different policies") < 0)
		goto nomem;
	if (strcmp(compare_side_policy(b), "mixed") == 0 &&
	    add_warning(res, "the runs in B use different policies") < 0)
		goto nomem;
	if (res->npair < COMPARE_FEW_PAIRS &&
	    add_warning(res, "only %zu pairs: the intervals are wide and the bootstrap's too narrow; "
	                "use %d seeds or more (10 to 20 is better)", res->npair, COMPARE_FEW_PAIRS) < 0)
		goto nomem;
	/* The smallest two-sided p the signed-rank test can give with n pairs. */
	double pmin = ldexp(2.0, -(int)(res->npair < 60 ? res->npair : 60));
	if (pmin > 1 - level &&
	    add_warning(res, "with %zu pairs the Wilcoxon test cannot go below p = %.4g, above the "
	                "%.4g the %g %% level asks: it cannot show a difference", res->npair, pmin,
	                1 - level, 100 * level) < 0)
		goto nomem;
	if (build_differs(res) < 0)
		goto nomem;

	/* The metrics: those asked, else the headline ones some paired run defines. */
	if (nmetric == 0) {
		for (size_t k = 0; k < res->npair; k++) {
			const char *got[32];
			size_t ng = compare_default_metrics(&ra[k]->m, got, 32);
			ng += compare_default_metrics(&rb[k]->m, got + ng, 32 - ng);
			for (size_t g = 0; g < ng; g++) {
				bool have = false;
				for (size_t q = 0; q < nmetric && !have; q++)
					have = strcmp(dflt[q], got[g]) == 0;
				if (!have && nmetric < 32)
					dflt[nmetric++] = got[g];
			}
		}
		metrics = dflt;
		res->stat = calloc(nmetric ? nmetric : 1, sizeof *res->stat);
		res->pa = calloc((nmetric ? nmetric : 1) * res->npair, sizeof *res->pa);
		res->pb = calloc((nmetric ? nmetric : 1) * res->npair, sizeof *res->pb);
		if (!res->stat || !res->pa || !res->pb)
			goto nomem;
		for (size_t q = 0; q < nmetric; q++)
			if (stat_one(res, ra, rb, q, dflt[q], level) < 0)
				goto nomem;
	} else {
		res->stat = calloc(nmetric, sizeof *res->stat);
		res->pa = calloc(nmetric * res->npair, sizeof *res->pa);
		res->pb = calloc(nmetric * res->npair, sizeof *res->pb);
		if (!res->stat || !res->pa || !res->pb)
			goto nomem;
		for (size_t q = 0; q < nmetric; q++)
			if (stat_one(res, ra, rb, q, metrics[q], level) < 0)
				goto nomem;
	}
	free(ra);
	free(rb);
	return 0;
nomem:
	failf(err, errlen, "out of memory");
fail:
	free(list);
	free(ra);
	free(rb);
	compare_result_fini(res);
	return -1;
}
