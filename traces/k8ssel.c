/* k8ssel — a pod's node constraints as label expressions (k8sutil.h,
 * docs/traces.md "Kubernetes"): spec.nodeSelector and the required node
 * affinity's nodeSelectorTerms become the required expression (the
 * selector's terms in every alternative), the preferred terms the
 * preferred one, and a GPU product asked for by the selector or by the
 * only required term the job's model set, when the reader maps products
 * (k8s_opts.gpu_model). The expressions are checked with sel_compile and
 * interned in the workload. */
#include "traces/k8s.h"
#include "traces/k8sutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/label.h"
#include "sim/taint.h"

#define GPU_PRODUCT "nvidia.com/gpu.product"

/* ---- text --------------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t m)
{
	if (b->oom)
		return;
	if (b->n + m + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 128;
		while (nc < b->n + m + 1)
			nc *= 2;
		char *np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->n, s, m);
	b->n += m;
	b->p[b->n] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* A label value as the expression language takes it: a bare word, else
 * quoted with \" and \\ escaped. */
static void sb_value(struct sbuf *b, const char *v)
{
	bool bare = *v != '\0';
	for (const char *c = v; *c; c++)
		bare &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		        strchr("_.+:/-", *c) != NULL;
	if (bare && strcmp(v, "in") != 0 && strcmp(v, "notin") != 0) {
		sb_str(b, v);
		return;
	}
	sb_add(b, "\"", 1);
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\')
			sb_add(b, "\\", 1);
		sb_add(b, c, 1);
	}
	sb_add(b, "\"", 1);
}

static bool key_ok(const char *k)
{
	size_t n = strlen(k);
	if (n < 1 || n > 128)
		return false;
	for (const char *c = k; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      strchr("_.-/", *c)))
			return false;
	return true;
}

/* ---- node constraints ----------------------------------------------------------- */

/* The catalog bits of GPU product v; 0 when it maps to none. */
static uint64_t product_bits(const struct kctx *c, const char *v)
{
	int m = c->o->gpu_model(c->o->gpu_model_ctx, v);
	return m >= 0 && m < 64 ? UINT64_C(1) << m : 0;
}

static int unknown_product(struct kctx *c, const char *key, const char *v)
{
	return kp_fail(&c->k, key, "unknown GPU product \"%.80s\" (products the catalog knows: %s; "
	               "map another with the scenario's from_inventory.gpu_models)", v,
	               c->o->known ? c->o->known : "see hetlab catalog");
}

/* One matchExpressions entry as a term of b. *models, when not NULL, takes
 * an In on the GPU product (the term is then not written). */
static int match_expr(struct kctx *c, const json_t *e, struct sbuf *b, uint64_t *models, bool *wrote)
{
	struct kpath *k = &c->k;
	const char *key, *op;
	json_t *vals;
	*wrote = false;
	if (!json_is_object(e))
		return kp_fail(k, NULL, "expected a match expression object, got %s", kp_type(e));
	if (kp_str(k, e, "key", true, &key) || kp_str(k, e, "operator", true, &op) ||
	    kp_arr(k, e, "values", false, &vals))
		return -1;
	if (!key_ok(key))
		return kp_fail(k, "key", "expected a label key of 1 to 128 letters, digits, '_', '.', "
		               "'-' or '/', got \"%.60s\"", key);
	size_t nv = json_array_size(vals), i;
	json_t *v;
	json_array_foreach(vals, i, v)
		if (!json_is_string(v)) {
			size_t at = kp_key(k, "values");
			kp_idx(k, i);
			int rc = kp_fail(k, NULL, "expected a string, got %s", kp_type(v));
			kp_pop(k, at);
			return rc;
		}
	bool in = strcmp(op, "In") == 0, notin = strcmp(op, "NotIn") == 0;
	bool gt = strcmp(op, "Gt") == 0, lt = strcmp(op, "Lt") == 0;
	if ((in || notin) && nv == 0)
		return kp_fail(k, "values", "expected at least one value for operator %s", op);
	if ((gt || lt) && nv != 1)
		return kp_fail(k, "values", "expected exactly one value for operator %s", op);
	if (in && models && strcmp(key, GPU_PRODUCT) == 0) {
		uint64_t bits = 0;
		json_array_foreach(vals, i, v)
			bits |= product_bits(c, json_string_value(v));
		if (!bits) {
			size_t at = kp_key(k, "values");
			int rc = unknown_product(c, NULL, json_string_value(json_array_get(vals, 0)));
			kp_pop(k, at);
			return rc;
		}
		*models = *models ? *models & bits : bits;
		return 0;
	}
	*wrote = true;
	if (in || notin) {
		sb_str(b, key);
		sb_str(b, in ? " in (" : " notin (");
		json_array_foreach(vals, i, v) {
			if (i)
				sb_str(b, ", ");
			sb_value(b, json_string_value(v));
		}
		sb_str(b, ")");
	} else if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
		sb_str(b, op[0] == 'D' ? "!" : "");
		sb_str(b, key);
	} else if (gt || lt) {
		const char *n = json_string_value(json_array_get(vals, 0));
		char *end;
		strtod(n, &end);
		if (!*n || *end)
			return kp_fail(k, "values", "expected an integer for operator %s, got \"%.40s\"", op, n);
		sb_str(b, key);
		sb_str(b, gt ? " > " : " < ");
		sb_value(b, n);
	} else {
		return kp_fail(k, "operator", "expected In, NotIn, Exists, DoesNotExist, Gt or Lt, got "
		               "\"%.40s\"", op);
	}
	return 0;
}

/* The matchExpressions of a node selector term (or preference) as a
 * conjunction appended to b after `prefix`. */
static int term_text(struct kctx *c, const json_t *term, const char *prefix, struct sbuf *b,
                     uint64_t *models)
{
	json_t *exprs, *e;
	size_t i;
	if (!json_is_object(term))
		return kp_fail(&c->k, NULL, "expected a node selector term object, got %s", kp_type(term));
	if (kp_arr(&c->k, term, "matchExpressions", false, &exprs))
		return -1;
	/* matchFields (metadata.name) name the original nodes, which the
	 * replay's cluster does not keep: not modelled. */
	sb_str(b, prefix);
	bool any = prefix[0] != '\0';
	size_t at = kp_key(&c->k, "matchExpressions");
	json_array_foreach(exprs, i, e) {
		size_t at2 = kp_idx(&c->k, i), mark = b->n;
		bool wrote;
		if (any)
			sb_str(b, ", ");
		if (match_expr(c, e, b, models, &wrote)) {
			kp_pop(&c->k, at);
			return -1;
		}
		if (!wrote && !b->oom) {
			b->n = mark;
			b->p[mark] = '\0';
		}
		any |= wrote;
		kp_pop(&c->k, at2);
	}
	kp_pop(&c->k, at);
	return 0;
}

/* The expression text interned (checked with sel_compile); *out index + 1,
 * 0 when empty. `key` names the path member the expression came from. */
static int intern_expr(struct kctx *c, struct sbuf *b, const char *key, int16_t *out)
{
	*out = 0;
	if (b->oom)
		return kp_fail(&c->k, key, "out of memory");
	if (!b->n)
		return 0;
	char msg[256];
	struct selector *S = sel_compile(b->p, msg, sizeof msg);
	if (!S)
		return kp_fail(&c->k, key, "cannot be read as a label expression (%s): %s", b->p, msg);
	sel_free(S);
	int idx = workload_intern(c->w, b->p);
	if (idx < 0 || idx >= INT16_MAX)
		return kp_fail(&c->k, key, "out of memory, or more than 32000 distinct node constraints");
	*out = (int16_t)(idx + 1);
	return 0;
}

int k8s_constraints(struct kctx *c, const json_t *spec, int16_t *sel_req, int16_t *sel_pref,
                    uint64_t *model_set)
{
	struct kpath *k = &c->k;
	json_t *ns, *aff, *na = NULL, *req = NULL, *pref = NULL, *terms = NULL, *t;
	struct sbuf base = { 0 }, expr = { 0 }, pr = { 0 };
	uint64_t *models = c->o->gpu_model ? model_set : NULL;
	*model_set = 0;
	int rc = -1;
	size_t i;
	if (kp_obj(k, spec, "nodeSelector", false, &ns) || kp_obj(k, spec, "affinity", false, &aff))
		return -1;
	size_t at = kp_key(k, "nodeSelector");
	const char *key;
	json_t *v;
	json_object_foreach(ns, key, v) {
		if (!json_is_string(v)) {
			rc = kp_fail(k, key, "expected a string, got %s", kp_type(v));
			goto out;
		}
		if (!key_ok(key)) {
			rc = kp_fail(k, key, "expected a label key of 1 to 128 letters, digits, '_', '.', "
			             "'-' or '/'");
			goto out;
		}
		if (models && strcmp(key, GPU_PRODUCT) == 0) {
			uint64_t bits = product_bits(c, json_string_value(v));
			if (!bits) {
				rc = unknown_product(c, key, json_string_value(v));
				goto out;
			}
			*model_set = bits;
			continue;
		}
		sb_str(&base, base.n ? ", " : "");
		sb_str(&base, key);
		sb_str(&base, " = ");
		sb_value(&base, json_string_value(v));
	}
	kp_pop(k, at);
	at = kp_key(k, "affinity");
	if (aff && kp_obj(k, aff, "nodeAffinity", false, &na))
		goto out;
	kp_key(k, "nodeAffinity");
	if (na && (kp_obj(k, na, "requiredDuringSchedulingIgnoredDuringExecution", false, &req) ||
	           kp_arr(k, na, "preferredDuringSchedulingIgnoredDuringExecution", false, &pref)))
		goto out;
	size_t at2 = kp_key(k, "requiredDuringSchedulingIgnoredDuringExecution");
	if (req && kp_arr(k, req, "nodeSelectorTerms", true, &terms))
		goto out;
	kp_key(k, "nodeSelectorTerms");
	/* One term: an In on the GPU product is the job's model set; several
	 * (ORed) terms keep it as a label term of their alternative. */
	bool one = json_array_size(terms) == 1;
	json_array_foreach(terms, i, t) {
		size_t at3 = kp_idx(k, i);
		if (i)
			sb_str(&expr, " | ");
		if (term_text(c, t, base.n ? base.p : "", &expr, one ? models : NULL))
			goto out;
		kp_pop(k, at3);
	}
	if (json_array_size(terms) == 0 && base.n)
		sb_str(&expr, base.p);
	kp_pop(k, at2);
	kp_key(k, "preferredDuringSchedulingIgnoredDuringExecution");
	json_array_foreach(pref, i, t) {
		size_t at3 = kp_idx(k, i);
		json_t *pt;
		if (!json_is_object(t)) {
			rc = kp_fail(k, NULL, "expected a preferred scheduling term, got %s", kp_type(t));
			goto out;
		}
		if (kp_obj(k, t, "preference", true, &pt))
			goto out;
		kp_key(k, "preference");
		size_t mark = pr.n;
		if (pr.n)
			sb_str(&pr, " | ");
		size_t body = pr.n;
		if (term_text(c, pt, "", &pr, NULL))
			goto out;
		if (pr.n == body && !pr.oom) {   /* an empty preference: nothing to prefer */
			pr.n = mark;
			pr.p[mark] = '\0';
		}
		kp_pop(k, at3);
	}
	kp_pop(k, at);
	if (intern_expr(c, &expr, json_array_size(terms) ? "affinity" : "nodeSelector", sel_req) ||
	    intern_expr(c, &pr, "affinity", sel_pref))
		goto out;
	rc = 0;
out:
	free(base.p);
	free(expr.p);
	free(pr.p);
	return rc;
}

int k8s_tolerations(struct kctx *c, const json_t *spec, int16_t *out)
{
	struct kpath *k = &c->k;
	json_t *tols, *t;
	struct sbuf b = { 0 };
	size_t i;
	int rc = -1;
	*out = 0;
	if (kp_arr(k, spec, "tolerations", false, &tols))
		return -1;
	size_t at = kp_key(k, "tolerations");
	json_array_foreach(tols, i, t) {
		const char *key, *op, *value, *effect;
		size_t at2 = kp_idx(k, i);
		if (!json_is_object(t)) {
			kp_fail(k, NULL, "expected a toleration object, got %s", kp_type(t));
			goto out;
		}
		if (kp_str(k, t, "key", false, &key) || kp_str(k, t, "operator", false, &op) ||
		    kp_str(k, t, "value", false, &value) || kp_str(k, t, "effect", false, &effect))
			goto out;
		bool exists = op && strcmp(op, "Exists") == 0;
		if (op && !exists && strcmp(op, "Equal") != 0) {
			kp_fail(k, "operator", "expected Equal or Exists, got \"%.40s\"", op);
			goto out;
		}
		if ((!key || !*key) && !exists) {
			kp_fail(k, "operator", "an empty key tolerates every taint with Exists only");
			goto out;
		}
		sb_str(&b, b.n ? ", " : "");
		sb_str(&b, key && *key ? key : "*");
		if (!exists) {
			sb_str(&b, "=");
			sb_str(&b, value ? value : "");
		}
		if (effect && *effect) {
			sb_str(&b, ":");
			sb_str(&b, effect);
		}
		kp_pop(k, at2);
	}
	if (b.oom) {
		kp_fail(k, NULL, "out of memory");
		goto out;
	}
	if (b.n) {
		struct toleration *tl;
		int32_t n;
		char msg[256];
		if (toleration_parse(b.p, &tl, &n, msg, sizeof msg)) {
			kp_fail(k, NULL, "%s", msg);
			goto out;
		}
		toleration_free(tl, n);
		int idx = workload_intern(c->w, b.p);
		if (idx < 0 || idx >= INT16_MAX) {
			kp_fail(k, NULL, "out of memory, or more than 32000 distinct node constraints");
			goto out;
		}
		*out = (int16_t)(idx + 1);
	}
	kp_pop(k, at);
	rc = 0;
out:
	free(b.p);
	return rc;
}
