/* fitfile — writing a fitted workload model as the scenario's
 * "workload.synthetic" object, and reading back where it came from (see
 * fit.h). */
#include "traces/trcutil.h"
#include "traces/fit.h"
#include "traces/jsonfile.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Puts every array that holds no array or object on one line ("profile":
 * [1.2, 0.8, ...]), which jansson's indenting cannot do. In place: the text
 * only shrinks. Strings are copied as they are. */
static void compact_arrays(char *s)
{
	char *o = s;
	const char *p = s;
	while (*p) {
		if (*p == '"') {
			/* Copy the string with its escapes. */
			*o++ = *p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					*o++ = *p++;
				*o++ = *p++;
			}
			if (*p)
				*o++ = *p++;
			continue;
		}
		if (*p != '[') {
			*o++ = *p++;
			continue;
		}
		/* Innermost? Look ahead to the closing bracket, skipping strings. */
		const char *q = p + 1;
		bool inner = true, in_str = false;
		for (; *q; q++) {
			if (in_str) {
				if (*q == '\\' && q[1])
					q++;
				else if (*q == '"')
					in_str = false;
			} else if (*q == '"') {
				in_str = true;
			} else if (*q == '[' || *q == '{') {
				inner = false;
				break;
			} else if (*q == ']') {
				break;
			}
		}
		if (!inner || !*q) {
			*o++ = *p++;
			continue;
		}
		/* Copy p..q dropping layout whitespace; one space after commas. */
		in_str = false;
		for (; p <= q; p++) {
			if (in_str) {
				if (*p == '\\' && p[1]) {
					*o++ = *p++;
				} else if (*p == '"') {
					in_str = false;
				}
				*o++ = *p;
			} else if (*p == '"') {
				in_str = true;
				*o++ = *p;
			} else if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
				continue;
			} else {
				*o++ = *p;
				if (*p == ',')
					*o++ = ' ';
			}
		}
	}
	*o = '\0';
}

static json_t *pairs_json(const int32_t *val, const double *p, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n && a; i++)
		if (json_array_append_new(a, json_pack("[i, f]", (int)val[i], p[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* A JSON array of n numbers, or NULL when out of memory. */
static json_t *numbers_json(const double *x, int n)
{
	json_t *q = json_array();
	for (int i = 0; i < n && q; i++)
		if (json_array_append_new(q, json_real(x[i])) != 0) {
			json_decref(q);
			q = NULL;
		}
	return q;
}

static json_t *class_json(const struct synth_class *k)
{
	json_t *o = json_object(), *prof = json_array();
	bool flat = true, cpu = false, gpu = false;
	int bad = !o || !prof;
	for (int h = 0; h < SYNTH_HOURS; h++)
		flat &= k->profile[h] == 0;
	for (int h = 0; h < SYNTH_HOURS && !bad; h++)
		bad |= json_array_append_new(prof, json_real(k->profile[h]));
	for (int i = 0; i < k->nmix; i++) {
		cpu |= k->mix_gpus[i] == 0 && k->mix_p[i] > 0;
		gpu |= k->mix_gpus[i] > 0 && k->mix_p[i] > 0;
	}
	bad = bad || json_object_set_new(o, "rate_per_h", json_real(k->rate_per_h));
	if (!flat)
		bad = bad || json_object_set(o, "profile", prof);
	if (k->burst_p > 0)
		bad = bad || json_object_set_new(o, "burst_p", json_real(k->burst_p)) ||
		      json_object_set_new(o, "burst_mean", json_real(k->burst_mean)) ||
		      json_object_set_new(o, "burst_gap_s", json_real(k->burst_gap_s));
	bad = bad || json_object_set_new(o, "dur_dist",
	                                 json_string(synth_dist_name((enum synth_dist)k->dur_dist)));
	switch (k->dur_dist) {
	case SYNTH_WEIBULL:
	case SYNTH_GAMMA:
		bad = bad || json_object_set_new(o, "dur_shape", json_real(k->dur_shape)) ||
		      json_object_set_new(o, "dur_scale_s", json_real(k->dur_scale_s));
		break;
	case SYNTH_EMPIRICAL: {
		json_t *q = json_array();
		for (int i = 0; i < k->nemp && q; i++)
			if (json_array_append_new(q, json_real(k->emp_s[i])) != 0) {
				json_decref(q);
				q = NULL;
			}
		bad = bad || json_object_set_new(o, "dur_quantiles_s", q);
		break;
	}
	default:
		bad = bad || json_object_set_new(o, "dur_median_s", json_real(k->dur_median_s)) ||
		      json_object_set_new(o, "dur_sigma", json_real(k->dur_sigma));
		break;
	}
	if (k->ngap >= 2)
		bad = bad || json_object_set_new(o, "gap_quantiles_s", numbers_json(k->gap_s, k->ngap));
	if (k->nsize > 0) {
		json_t *a = json_array();
		for (int i = 0; i < k->nsize && a; i++) {
			json_t *e = json_object();
			int64_t m = k->size_max[i];
			int ebad = !e;
			if (!ebad && m != INT64_MAX)
				ebad = json_object_set_new(e, m >= SYNTH_SIZE_GPU ? "gpus_max" : "cores_max",
				                           json_integer(m >= SYNTH_SIZE_GPU ? m - SYNTH_SIZE_GPU : m));
			ebad = ebad || json_object_set_new(e, "quantiles_s",
			                                   numbers_json(k->size_q[i], k->nsize_q[i]));
			if (ebad || json_array_append_new(a, e) != 0) {
				json_decref(a);
				a = NULL;
			}
		}
		bad = bad || json_object_set_new(o, "dur_by_size", a);
	}
	bad = bad || json_object_set_new(o, "dur_max_s", json_real(k->dur_max_s)) ||
	      json_object_set_new(o, "walltime_factor", json_real(k->walltime_factor)) ||
	      json_object_set_new(o, "mix", pairs_json(k->mix_gpus, k->mix_p, k->nmix));
	if (gpu)
		bad = bad || json_object_set_new(o, "cores_per_gpu", json_integer(k->cores_per_gpu)) ||
		      json_object_set_new(o, "mem_per_gpu_gib", json_real((double)k->mem_per_gpu_mib / 1024)) ||
		      json_object_set_new(o, "gpu_mem_gib", json_real((double)k->gpu_mem_mib / 1024));
	if (cpu && k->ncpu_mix > 0)
		bad = bad || json_object_set_new(o, "cpu_mix", pairs_json(k->cpu_mix, k->cpu_mix_p,
		                                                           k->ncpu_mix));
	else if (cpu)
		bad = bad || json_object_set_new(o, "cpu_cores", json_integer(k->cpu_cores));
	if (cpu)
		bad = bad || json_object_set_new(o, "spread", json_boolean(k->spread));
	bad = bad || json_object_set_new(o, "fail_p", json_real(k->fail_p)) ||
	      json_object_set_new(o, "tenants", json_integer(k->ntenants));
	bool weighted = false;
	for (int i = 0; i < SYNTH_TENANTS_MAX; i++)
		weighted |= k->tenant_w[i] > 0;
	if (weighted && k->ntenants <= SYNTH_TENANTS_MAX) {
		json_t *tw = json_array();
		for (int i = 0; i < k->ntenants && tw; i++)
			if (json_array_append_new(tw, json_real(k->tenant_w[i])) != 0) {
				json_decref(tw);
				tw = NULL;
			}
		bad = bad || json_object_set_new(o, "tenant_weights", tw);
	}
	json_decref(prof);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int trace_fit_write(const char *path, const struct synth_cfg *m, const char *fitted_from,
                    char *err, size_t errlen)
{
	json_t *root = json_object(), *classes = json_object();
	char *text = NULL;
	int rc = -1;
	bool bad = !root || !classes;
	if (fitted_from)
		bad = bad || json_object_set_new(root, "fitted_from", json_string(fitted_from));
	bad = bad || json_object_set_new(root, "days", json_real(m->days)) ||
	      json_object_set_new(root, "gpus_per_node", json_integer(m->gpus_per_node));
	for (int c = 0; c < JOB_NCLASS && !bad; c++)
		if (m->cls[c].rate_per_h > 0)
			bad = json_object_set_new(classes, job_class_name((enum job_class)c),
			                          class_json(&m->cls[c])) != 0;
	bad = bad || json_object_set(root, "classes", classes);
	if (bad) {
		trc_fail(err, errlen, "%s: out of memory (or a string that is not UTF-8) building the model",
		      path);
		goto out;
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	if (!text) {
		trc_fail(err, errlen, "%s: out of memory writing the model", path);
		goto out;
	}
	compact_arrays(text);
	size_t n = strlen(text);
	char *t2 = realloc(text, n + 2);
	if (!t2) {
		trc_fail(err, errlen, "%s: out of memory writing the model", path);
		goto out;
	}
	text = t2;
	memcpy(text + n, "\n", 2);
	rc = trc_write_atomic(path, text, err, errlen);
out:
	free(text);
	json_decref(classes);
	json_decref(root);
	return rc;
}

int trace_fit_source(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	json_t *root = jsonfile_load(path, err, errlen);   /* BOM, directory and size as every JSON input */
	if (!root)
		return -1;
	const char *s = json_string_value(json_object_get(root, "fitted_from"));
	snprintf(out, len, "%s", s ? s : "");
	json_decref(root);
	return 0;
}
