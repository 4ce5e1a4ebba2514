/* metric — the registry and the values of one run (see metric.h; the
 * formulas are in docs/compare.md, "Metrics": keep the two in step). */
#include "analysis/metric.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/mrun.h"
#include "sim/job.h"

#define L_CT (METRIC_L_CLASS | METRIC_L_TENANT)

const struct metric_kind metric_kinds[] = {
	{ "jobs", "jobs", METRIC_NEUTRAL, L_CT, "jobs submitted in the window" },
	{ "done", "jobs", METRIC_HIGHER, L_CT, "of those, jobs that ended done" },
	{ "failed", "jobs", METRIC_LOWER, L_CT | METRIC_L_REASON, "jobs that ended failed (by end reason: oom, trace, node_fail, ...)" },
	{ "killed", "jobs", METRIC_LOWER, L_CT | METRIC_L_REASON, "jobs that ended killed (by end reason: walltime, ...; rejected at submit included)" },
	{ "mean_wait", "s", METRIC_LOWER, L_CT, "mean of start - submit over the started jobs" },
	{ "p50_wait", "s", METRIC_LOWER, L_CT, "median wait (linear interpolation, type 7)" },
	{ "p90_wait", "s", METRIC_LOWER, L_CT, "90th percentile of the waits" },
	{ "p95_wait", "s", METRIC_LOWER, L_CT, "95th percentile of the waits" },
	{ "p99_wait", "s", METRIC_LOWER, L_CT, "99th percentile of the waits" },
	{ "max_wait", "s", METRIC_LOWER, L_CT, "longest wait" },
	{ "mean_jct", "s", METRIC_LOWER, L_CT, "mean of end - submit over the ended jobs" },
	{ "p50_jct", "s", METRIC_LOWER, L_CT, "median job completion time" },
	{ "p90_jct", "s", METRIC_LOWER, L_CT, "90th percentile of end - submit" },
	{ "p95_jct", "s", METRIC_LOWER, L_CT, "95th percentile of end - submit" },
	{ "p99_jct", "s", METRIC_LOWER, L_CT, "99th percentile of end - submit" },
	{ "mean_bsld", "ratio", METRIC_LOWER, L_CT, "mean bounded slowdown max((wait + run) / max(run, 10 s), 1)" },
	{ "core_util", "fraction", METRIC_HIGHER, METRIC_L_CLASS | METRIC_L_TYPE, "allocated core-seconds / core-seconds of the nodes present" },
	{ "gpu_util", "fraction", METRIC_HIGHER, METRIC_L_CLASS | METRIC_L_GPU | METRIC_L_TYPE, "allocated GPU-seconds (card equivalents) / GPU-seconds of the nodes present" },
	{ "gpu_h", "GPU-h", METRIC_NEUTRAL, L_CT | METRIC_L_GPU, "allocated GPU-hours (every run of a job)" },
	{ "core_h", "core-h", METRIC_NEUTRAL, L_CT, "allocated core-hours (every run of a job)" },
	{ "makespan", "s", METRIC_LOWER, 0, "last end - first submit of the run (not windowed)" },
	{ "preemptions", "count", METRIC_LOWER, L_CT, "preemptions of the jobs" },
	{ "lost_gpu_h", "GPU-h", METRIC_LOWER, L_CT, "GPU-hours of work lost to preemptions and faults" },
	{ "quota_held_h", "h", METRIC_LOWER, L_CT, "hours jobs were held for quota" },
	{ "it_energy_kwh", "kWh", METRIC_LOWER, 0, "IT energy (power model)" },
	{ "facility_energy_kwh", "kWh", METRIC_LOWER, 0, "facility energy: IT plus cooling (PUE)" },
	{ "pue", "ratio", METRIC_LOWER, 0, "facility energy / IT energy" },
	{ "energy_cost", "currency", METRIC_LOWER, 0, "cost of the facility energy at the tariff" },
	{ "carbon_kg", "kg", METRIC_LOWER, 0, "CO2 of the facility energy" },
	{ "throttled_gpu_h", "GPU-h", METRIC_LOWER, METRIC_L_RACK, "busy GPU-hours under a lowered power limit (rack capping)" },
	{ "warn_h", "h", METRIC_LOWER, METRIC_L_RACK, "hours a rack spent in warning (no new work); summed over racks" },
	{ "over_cap_h", "h", METRIC_LOWER, METRIC_L_RACK, "hours a rack spent above its cap; summed over racks" },
	{ "peak_cap", "fraction", METRIC_LOWER, METRIC_L_RACK, "a rack's peak power / its cap; the highest over racks" },
	{ "slo_violation_s", "s", METRIC_LOWER, METRIC_L_SERVICE, "time an inference service was short of a replica (summed over services)" },
	{ NULL, NULL, METRIC_NEUTRAL, 0, NULL },
};

/* Older names, kept so that files and commands written for them still work. */
static const struct { const char *alias, *name; } aliases[] = {
	{ "wait_training", "mean_wait{class=training}" },
	{ "wait_inference", "mean_wait{class=inference}" },
	{ "wait_batch", "mean_wait{class=batch}" },
	{ "wait_dev", "mean_wait{class=dev}" },
	{ NULL, NULL },
};

static const char *const label_keys[] = { "class", "tenant", "gpu", "type", "rack", "service",
	"reason", NULL };

const char *metric_label_key(int i)
{
	return i >= 0 && i < (int)(sizeof label_keys / sizeof *label_keys) ? label_keys[i] : NULL;
}

static const struct metric_kind *kind_of_base(const char *base, size_t n)
{
	for (int i = 0; metric_kinds[i].base; i++)
		if (strlen(metric_kinds[i].base) == n && strncmp(metric_kinds[i].base, base, n) == 0)
			return &metric_kinds[i];
	return NULL;
}

const struct metric_kind *metric_parse(const char *name, char *canon, size_t len, char *err,
                                       size_t errlen)
{
	for (int i = 0; aliases[i].alias; i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	const char *brace = strchr(name, '{');
	size_t nb = brace ? (size_t)(brace - name) : strlen(name);
	const struct metric_kind *k = kind_of_base(name, nb);
	if (!k) {
		snprintf(err, errlen, "unknown metric '%s' (hetlab compare --list-metrics lists them)", name);
		return NULL;
	}
	if (brace) {
		const char *eq = strchr(brace, '=');
		size_t l = strlen(name);
		if (!eq || name[l - 1] != '}' || eq == brace + 1 || eq + 1 == name + l - 1 ||
		    strchr(eq, ',')) {
			snprintf(err, errlen, "metric '%s': expected BASE{KEY=VALUE}, one label", name);
			return NULL;
		}
		int key = -1;
		for (int i = 0; label_keys[i]; i++)
			if (strlen(label_keys[i]) == (size_t)(eq - brace - 1) &&
			    strncmp(label_keys[i], brace + 1, (size_t)(eq - brace - 1)) == 0)
				key = i;
		if (key < 0 || !(k->labels & (1u << key))) {
			char took[128] = "";
			size_t off = 0;
			for (int i = 0; label_keys[i]; i++)
				if (k->labels & (1u << i))
					off += (size_t)snprintf(took + off, sizeof took - off, "%s%s",
					                        off ? ", " : "", label_keys[i]);
			snprintf(err, errlen, "metric '%s': %s takes %s%s", name, k->base,
			         took[0] ? "the labels " : "no label", took);
			return NULL;
		}
	}
	if (strlen(name) >= len || strlen(name) >= METRIC_NAME_MAX) {
		snprintf(err, errlen, "metric '%s': name too long", name);
		return NULL;
	}
	snprintf(canon, len, "%s", name);
	return k;
}

const struct metric_kind *metric_kind_of(const char *name)
{
	const char *brace = strchr(name, '{');
	return kind_of_base(name, brace ? (size_t)(brace - name) : strlen(name));
}

int metric_direction(const char *name)
{
	const struct metric_kind *k = metric_kind_of(name);
	return k ? (int)k->dir : METRIC_LOWER;
}

const char *metric_unit(const char *name)
{
	const struct metric_kind *k = metric_kind_of(name);
	return k ? k->unit : "";
}

void metric_range(const char *name, double *lo, double *hi)
{
	const struct metric_kind *k = metric_kind_of(name);
	*lo = 0;   /* every metric of the registry counts, sums or shares: none below 0 */
	*hi = k && (strcmp(k->base, "gpu_util") == 0 || strcmp(k->base, "core_util") == 0) ? 1 : INFINITY;
}

void metric_print_list(FILE *out)
{
	fprintf(out, "%-20s %-9s %-7s %-28s %s\n", "metric", "unit", "better", "labels", "what");
	for (int i = 0; metric_kinds[i].base; i++) {
		const struct metric_kind *k = &metric_kinds[i];
		char labels[128] = "";
		size_t off = 0;
		for (int b = 0; label_keys[b]; b++)
			if (k->labels & (1u << b))
				off += (size_t)snprintf(labels + off, sizeof labels - off, "%s%s",
				                        off ? "," : "", label_keys[b]);
		fprintf(out, "%-20s %-9s %-7s %-28s %s\n", k->base, k->unit,
		        k->dir == METRIC_LOWER ? "lower" : k->dir == METRIC_HIGHER ? "higher" : "-",
		        labels[0] ? labels : "-", k->what);
	}
	fputs("aliases:", out);
	for (int i = 0; aliases[i].alias; i++)
		fprintf(out, " %s = %s%s", aliases[i].alias, aliases[i].name, aliases[i + 1].alias ? "," : "");
	fputc('\n', out);
}

/* ---- sets -------------------------------------------------------------------- */

static int cmp_val(const void *a, const void *b)
{
	return strcmp(((const struct metric_val *)a)->name, ((const struct metric_val *)b)->name);
}

void metric_set_fini(struct metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static struct metric_val *find(const struct metric_set *s, const char *name)
{
	struct metric_val key = { .name = (char *)name };
	return s->n ? bsearch(&key, s->v, s->n, sizeof *s->v, cmp_val) : NULL;
}

double metric_get(const struct metric_set *s, const char *name)
{
	char canon[METRIC_NAME_MAX], err[256];
	const struct metric_val *v = find(s, name);
	if (!v && metric_parse(name, canon, sizeof canon, err, sizeof err))
		v = find(s, canon);
	return v ? v->v : NAN;
}

int metric_set_put(struct metric_set *s, const char *name, double v)
{
	struct metric_val *have = find(s, name);
	if (have) {
		have->v = v;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct metric_val *p = realloc(s->v, cap * sizeof *p);
		if (!p)
			return -1;
		s->v = p;
		s->cap = cap;
	}
	if (!(s->v[s->n].name = strdup(name)))
		return -1;
	s->v[s->n++].v = v;
	/* Keep the array sorted: insertion from the end. */
	for (size_t i = s->n - 1; i > 0 && cmp_val(&s->v[i - 1], &s->v[i]) > 0; i--) {
		struct metric_val t = s->v[i - 1];
		s->v[i - 1] = s->v[i];
		s->v[i] = t;
	}
	return 0;
}

int metric_run_load(const char *db, const struct metric_window *w, struct metric_set *out,
                    char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct mrun r;
	if (mrun_open(db, &r, err, errlen) < 0)
		return -1;
	int ret = mrun_metrics(&r, w, out, err, errlen);
	mrun_close(&r);
	if (ret < 0)
		metric_set_fini(out);
	return ret;
}

int metric_meta_texts(const struct metric_window *w, const char *const *tenants, int ntenants,
                      const char *const *services, int nservices, char **labels, char **measure)
{
	json_t *lab = json_object(), *ta = json_array(), *sa = json_array();
	for (int i = 0; i < ntenants; i++)
		json_array_append_new(ta, json_string(tenants[i]));
	for (int i = 0; i < nservices; i++)
		json_array_append_new(sa, json_string(services[i]));
	json_object_set_new(lab, "tenants", ta);
	json_object_set_new(lab, "services", sa);
	*labels = json_dumps(lab, JSON_COMPACT);
	json_decref(lab);
	*measure = w && w->given ? metric_window_to_json_text(w) : NULL;
	if (!*labels || (w && w->given && !*measure)) {
		free(*labels);
		free(*measure);
		*labels = *measure = NULL;
		return -1;
	}
	return 0;
}
