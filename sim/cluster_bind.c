/* cluster_bind — binding a workload's names to the cluster: each job's
 * label expressions (required and preferred) compiled once per distinct
 * text into cl->sel and its index stored in the request, a job's
 * tolerations folded into its selectors on a cluster with taints, and
 * the selectors evaluated per node ahead of the run (cluster_bind_workload,
 * cluster_bind_more). See cluster.h. */
#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a compiled selector (taking it; NULL: the compile failed with
 * why). Its index in cl->sel, or -1 with a message. */
static int push_selector(struct cluster *cl, struct selector *S, const char *src, const char *why, char *err,
                         size_t errlen)
{
	if (!S) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	struct selector **ns = realloc(cl->sel, (size_t)(cl->nsel + 1) * sizeof *ns);
	if (ns)
		cl->sel = ns;
	char **nsrc = ns ? realloc(cl->selsrc, (size_t)(cl->nsel + 1) * sizeof *nsrc) : NULL;
	if (nsrc)
		cl->selsrc = nsrc;
	char *copy = nsrc ? strdup(src) : NULL;
	if (!copy) {
		sel_free(S);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cl->sel[cl->nsel] = S;
	cl->selsrc[cl->nsel] = copy;
	return cl->nsel++;
}

/* What a selector is compiled from: "S\x1f" and a plain expression, or a
 * tolerated one's key ("R" or "P", "\x1f", the expression, "\x1f", the
 * tolerations). */
static int add_selector(struct cluster *cl, const char *text, char *err, size_t errlen)
{
	char why[256];
	struct selector *S = sel_compile(text, why, sizeof why);
	size_t len = strlen(text) + 3;
	char *src = malloc(len);
	if (!src) {
		sel_free(S);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(src, len, "S\x1f%s", text);
	int k = push_selector(cl, S, src, why, err, errlen);
	free(src);
	return k;
}

/* A selector with a job's tolerations (a cluster with taints: sim/taint.h),
 * shared by the jobs with the same expression and tolerations. The index
 * in cl->sel, or -1 with a message. */
static int tol_selector(struct cluster *cl, bool prefer, const char *expr, const char *tol, char *err,
                        size_t errlen)
{
	size_t len = strlen(expr) + (tol ? strlen(tol) : 0) + 4;
	char *key = malloc(len);
	if (!key) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(key, len, "%c\x1f%s\x1f%s", prefer ? 'P' : 'R', expr, tol ? tol : "");
	for (int32_t k = 0; k < cl->nsel; k++) {
		const char *sk = sel_key(cl->sel[k]);
		if (sk && strcmp(sk, key) == 0) {
			free(key);
			return k;
		}
	}
	char why[300];
	struct selector *S = sel_compile_tol(expr, tol, prefer, key, why, sizeof why);
	int k = push_selector(cl, S, key, why, err, errlen);
	free(key);
	return k;
}

/* Folds a job's tolerations into its selectors on a cluster with taints:
 * with NoSchedule/NoExecute taints every job gets a required selector (its
 * own expression, or none, with its tolerations), so that a job without a
 * toleration never lands on a tainted node; with PreferNoSchedule taints
 * every job gets a preferred one. 0, or -1 with a message. */
static int bind_tolerations(struct cluster *cl, char *const *strs, int32_t nstrs, struct job *jb, char *err,
                            size_t errlen)
{
	struct job_req *r = &jb->req;
	bool hard = labels_tainted(cl->labels, false) > 0, soft = labels_tainted(cl->labels, true) > 0;
	if (!hard && !soft)
		return 0;
	if (jb->tolerate > nstrs || r->sel_req > nstrs || r->sel_pref > nstrs) {
		snprintf(err, errlen, "job %lld: a label expression or toleration out of range", (long long)jb->trace_id);
		return -1;
	}
	const char *tol = jb->tolerate > 0 ? strs[jb->tolerate - 1] : NULL;
	int16_t *sels[2] = { &r->sel_req, &r->sel_pref };
	for (int k = 0; k < 2; k++) {
		if (!(k ? soft : hard))
			continue;
		const char *expr = *sels[k] > 0 ? strs[*sels[k] - 1] : "";
		int ix = tol_selector(cl, k == 1, expr, tol, err, errlen);
		if (ix < 0) {
			char msg[400];
			snprintf(msg, sizeof msg, "job %lld: label expression \"%s\" with tolerations \"%s\": %s",
			         (long long)jb->trace_id, expr, tol ? tol : "", err);
			snprintf(err, errlen, "%s", msg);
			return -1;
		}
		*sels[k] = (int16_t)-(ix + 1);   /* bound: marked negative until the loop below */
	}
	return 0;
}

static int eval_selectors(struct cluster *cl)
{
	size_t words = ((size_t)cl->nnodes + 63) / 64;
	free(cl->selmask);
	free(cl->selscore);
	cl->selmask = calloc((size_t)cl->nsel * words + 1, sizeof *cl->selmask);
	cl->selscore = calloc((size_t)cl->nsel * (size_t)cl->nnodes + 1, 1);
	if (!cl->selmask || !cl->selscore)
		return -1;
	for (int32_t k = 0; k < cl->nsel; k++)
		for (int32_t i = 0; i < cl->nnodes; i++) {
			if (sel_match(cl->sel[k], cl->labels, i))
				cl->selmask[(size_t)k * words + (size_t)i / 64] |= 1ull << (i % 64);
			int sc = sel_score(cl->sel[k], cl->labels, i);
			cl->selscore[(size_t)k * (size_t)cl->nnodes + (size_t)i] = (uint8_t)(sc > 255 ? 255 : sc);
		}
	return 0;
}

int cluster_bind_more(struct cluster *cl, char *const *strs, int32_t nstrs, int32_t *selmap,
                      struct job *jobs, int32_t njobs, char *err, size_t errlen)
{
	for (int32_t j = 0; j < njobs; j++) {
		struct job_req *r = &jobs[j].req;
		int16_t *sels[2] = { &r->sel_req, &r->sel_pref };
		if (cl->labels && bind_tolerations(cl, strs, nstrs, &jobs[j], err, errlen))
			return -1;
		for (int k = 0; k < 2; k++) {
			int s1 = *sels[k];
			if (s1 < 0) {   /* bound with its tolerations */
				*sels[k] = (int16_t)-s1;
				continue;
			}
			if (s1 == 0)
				continue;
			if (s1 > nstrs) {
				snprintf(err, errlen, "job %lld: label expression %d out of range", (long long)jobs[j].trace_id, s1);
				return -1;
			}
			if (selmap[s1 - 1] < 0) {
				char why[300];
				if ((selmap[s1 - 1] = add_selector(cl, strs[s1 - 1], why, sizeof why)) < 0) {
					snprintf(err, errlen, "job %lld: label expression \"%s\": %s",
					         (long long)jobs[j].trace_id, strs[s1 - 1], why);
					return -1;
				}
			}
			*sels[k] = (int16_t)(selmap[s1 - 1] + 1);
		}
		if (r->plane > 0) {
			if (r->plane > nstrs) {
				snprintf(err, errlen, "job %lld: plane name out of range", (long long)jobs[j].trace_id);
				return -1;
			}
			int pl = cluster_plane_index(cl, strs[r->plane - 1]);
			r->plane = (int16_t)(pl >= 0 ? pl + 1 : INT16_MAX);   /* unknown: never fits */
		}
		if (r->pool > 0) {
			int po = r->pool <= nstrs ? cluster_pool_index(cl, strs[r->pool - 1]) : -1;
			if (po < 0) {
				char known[512] = "";
				size_t off = 0;
				for (int i = 0; i < cl->npools && off < sizeof known; i++)
					off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", cl->pools[i].name);
				snprintf(err, errlen, "job %lld: storage pool \"%s\" is not in the scenario (it has: %s)",
				         (long long)jobs[j].trace_id, r->pool <= nstrs ? strs[r->pool - 1] : "?",
				         known[0] ? known : "none");
				return -1;
			}
			r->pool = (int16_t)(po + 1);
		}
	}
	if ((int64_t)cl->nsel * cl->nnodes > HL_MAX_SEL_CELLS) {
		snprintf(err, errlen, "%d distinct label expressions over %d nodes: more than hetlab "
		         "evaluates (at most %lld expression-node pairs; docs/scenario.md \"Limits\")",
		         (int)cl->nsel, (int)cl->nnodes, (long long)HL_MAX_SEL_CELLS);
		return -1;
	}
	if (eval_selectors(cl)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int cluster_bind_workload(struct cluster *cl, char *const *strs, int32_t nstrs,
                          struct job *jobs, int32_t njobs, char *err, size_t errlen)
{
	int32_t *selmap = NULL;
	cluster_unbind_workload(cl);
	if (nstrs > 0 && !(selmap = malloc((size_t)nstrs * sizeof *selmap))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < nstrs; i++)
		selmap[i] = -1;
	int rc = cluster_bind_more(cl, strs, nstrs, selmap, jobs, njobs, err, errlen);
	free(selmap);
	return rc;
}

/* ---- snapshots ---- */

void cluster_sel_save(const struct cluster *cl, struct snapw *w)
{
	snap_put_tag(w, "sel");
	snap_put_n(w, cl->nsel);
	for (int32_t k = 0; k < cl->nsel; k++) {
		const char *src = cl->selsrc && cl->selsrc[k] ? cl->selsrc[k] : "";
		snap_put_n(w, (int64_t)strlen(src));
		snap_put(w, src, strlen(src));
	}
}

int cluster_sel_load(struct cluster *cl, struct snapr *r)
{
	if (snap_get_tag(r, "sel"))
		return -1;
	int64_t n = snap_get_n(r, INT16_MAX, "the label expressions");
	if (n < 0)
		return -1;
	if (n < cl->nsel)
		return snap_bad(r, "%lld label expressions, this run has %d already", (long long)n, cl->nsel);
	int32_t had = cl->nsel;
	for (int32_t k = 0; k < n; k++) {
		int64_t len = snap_get_n(r, 1 << 20, "a label expression");
		if (len < 0)
			return -1;
		char *src = malloc((size_t)len + 1);
		if (!src)
			return snap_bad(r, "out of memory");
		snap_get(r, src, (size_t)len);
		src[len] = 0;
		if (r->bad) {
			free(src);
			return -1;
		}
		char err[320] = "";
		int rc = 0;
		if (k < had) {
			if (strcmp(src, cl->selsrc && cl->selsrc[k] ? cl->selsrc[k] : "") != 0)
				rc = snap_bad(r, "label expression %d differs from this run's", k);
		} else if (src[0] == 'S' && src[1] == '\x1f') {
			rc = add_selector(cl, src + 2, err, sizeof err) == k ? 0 : -1;
		} else if ((src[0] == 'R' || src[0] == 'P') && src[1] == '\x1f' && strchr(src + 2, '\x1f')) {
			char *expr = src + 2, *tol = strchr(expr, '\x1f');
			*tol++ = 0;
			char *key = malloc((size_t)len + 1);
			if (key) {
				snprintf(key, (size_t)len + 1, "%c\x1f%s\x1f%s", src[0], expr, tol);
				char why[300];
				struct selector *S = sel_compile_tol(expr, tol[0] ? tol : NULL, src[0] == 'P', key, why, sizeof why);
				rc = push_selector(cl, S, key, why, err, sizeof err) == k ? 0 : -1;
				free(key);
			} else {
				rc = -1;
			}
		} else {
			rc = snap_bad(r, "label expression %d: not a selector's source", k);
		}
		free(src);
		if (rc)
			return r->bad ? -1 : snap_bad(r, "label expression %d: %s", k, err[0] ? err : "out of memory");
	}
	if (cl->nsel != had && eval_selectors(cl))
		return snap_bad(r, "out of memory");
	return 0;
}
