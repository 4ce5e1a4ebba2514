/* sacctcheck — what a Slurm dump's reading leaves a user to know
 * (sacct_notes) and the partitions and GPU types a scenario's nodes lack
 * (sacct_check_labels); see sacct.h and docs/traces.md "Slurm accounting
 * (sacct)". */
#include "traces/sacct.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/label.h"

#define ADD(...) (off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))

void sacct_notes(const struct workload *w, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	if (w->sacct_merged)
		ADD("%lld lines were further runs of a requeued or preempted job (sacct -D): merged, "
		    "each job with the Submit of its first run and the rest of its last",
		    (long long)w->sacct_merged);
	if (w->sacct_late)
		ADD("%s%lld jobs were submitted later than a job of a higher JobID (first JobID %lld, "
		    "after JobID %lld): requeued jobs in a dump made without -D, which keeps only a "
		    "requeued job's last run, submitted when it was requeued (dump with sacct -D)",
		    off ? "\n" : "", (long long)w->sacct_late, (long long)w->sacct_late_id[0],
		    (long long)w->sacct_late_id[1]);
	if (w->sacct_estimated)
		ADD("%s%lld jobs cancelled by a preemption: their runs estimated from the jobs of their account that "
		    "outlived them (sacct keeps the part they ran)", off ? "\n" : "", (long long)w->sacct_estimated);
	if (w->sacct_ms)
		ADD("%s%lld jobs submitted to the millisecond (slurmctld's log)", off ? "\n" : "", (long long)w->sacct_ms);
}

/* Whether some node of cl meets `expr`. */
static bool any_node(const struct cluster *cl, const char *expr)
{
	char err[160];
	struct selector *S = sel_compile(expr, err, sizeof err);
	if (!S)
		return true;   /* an expression that does not parse: cluster_bind_workload says so */
	bool yes = false;
	for (int32_t node = 0; node < cl->nnodes && !yes; node++)
		yes = sel_match(S, cl->labels, node);
	sel_free(S);
	return yes;
}

/* For each name of kind k, whether some node has label = that name. NULL
 * on ENOMEM. */
static bool *names_on_nodes(const struct workload *w, enum wl_name_kind k, const char *label,
                            const struct cluster *cl)
{
	int32_t n = w->names[k].n;
	bool *have = calloc((size_t)(n ? n : 1), sizeof *have);
	for (int32_t i = 0; have && i < n; i++) {
		char expr[LABEL_KEY_MAX + 300];
		snprintf(expr, sizeof expr, "%s = \"%.256s\"", label, w->names[k].v[i]);
		have[i] = any_node(cl, expr);
	}
	return have;
}

/* Whether some node has partition p and GPU type g together (each is on
 * some node), cached in pair[p * ntypes + g] (0 not yet known, 1 yes, 2
 * no) when there is one. */
static bool pair_on_nodes(const struct workload *w, const struct swf_shape *sh, const struct cluster *cl,
                          int32_t p, int32_t g, uint8_t *pair)
{
	uint8_t *c = pair ? &pair[(size_t)p * (size_t)w->names[WL_GPU_TYPE].n + (size_t)g] : NULL;
	if (c && *c)
		return *c == 1;
	char expr[2 * LABEL_KEY_MAX + 600];
	snprintf(expr, sizeof expr, "%s = \"%.256s\", %s = \"%.256s\"", sh->partition_label,
	         w->names[WL_PARTITION].v[p], sh->gpu_type_label, w->names[WL_GPU_TYPE].v[g]);
	bool yes = any_node(cl, expr);
	if (c)
		*c = yes ? 1 : 2;
	return yes;
}

/* "partition = cpu, short": the values of label on cl's nodes (the
 * elements of list values; the first few), appended to buf. */
static void label_values(const struct cluster *cl, const char *label, char *buf, size_t len)
{
	enum { MAXV = 8 };
	size_t off = strlen(buf);
	ADD("%s%s =", off ? "; " : "", label);
	struct { const char *s; size_t n; } seen[MAXV];
	int nseen = 0;
	bool more = false;
	for (int32_t node = 0; node < cl->nnodes && !more; node++) {
		const char *v = labels_get(cl->labels, node, label);
		while (v && *v && !more) {
			size_t n = strcspn(v, ",");
			bool dup = false;
			for (int i = 0; i < nseen && !dup; i++)
				dup = seen[i].n == n && strncmp(seen[i].s, v, n) == 0;
			if (!dup && nseen == MAXV)
				more = true;
			else if (!dup) {
				seen[nseen].s = v;
				seen[nseen++].n = n;
				ADD("%s %.*s", nseen > 1 ? "," : "", (int)n, v);
			}
			v += n + (v[n] == ',');
		}
	}
	if (nseen == 0)
		ADD(" (none)");
	else if (more)
		ADD(", ...");
}

int64_t sacct_check_labels(const struct workload *w, const struct swf_shape *sh,
                           const struct cluster *cl, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *pl = sh && sh->partition_label[0] && w->names[WL_PARTITION].n ? sh->partition_label : NULL;
	const char *gl = sh && sh->gpu_type_label[0] && w->job_gpu_type ? sh->gpu_type_label : NULL;
	if (!pl && !gl)
		return 0;
	bool *hp = pl ? names_on_nodes(w, WL_PARTITION, pl, cl) : NULL;
	bool *hg = gl ? names_on_nodes(w, WL_GPU_TYPE, gl, cl) : NULL;
	int64_t npair = pl && gl ? (int64_t)w->names[WL_PARTITION].n * w->names[WL_GPU_TYPE].n : 0;
	uint8_t *pair = npair > 0 && npair <= (1 << 20) ? calloc((size_t)npair, 1) : NULL;
	if ((pl && !hp) || (gl && !hg)) {
		free(hp);
		free(hg);
		free(pair);
		return -1;
	}
	enum { SHOW = 3 };
	char jobs[768] = "";
	size_t off = 0;
	int64_t bad = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		int32_t p = pl && j->queue < w->names[WL_PARTITION].n ? j->queue : -1;
		int32_t g = gl && j->req.gpus > 0 ? w->job_gpu_type[i] : -1;
		bool np = p >= 0 && !hp[p], ng = g >= 0 && !hg[g];
		bool both = p >= 0 && g >= 0 && !np && !ng && !pair_on_nodes(w, sh, cl, p, g, pair);
		if (!np && !ng && !both)
			continue;
		if (bad++ >= SHOW)
			continue;
		char what[2 * 300];
		snprintf(what, sizeof what, "%s%.256s%s%s%s%.256s%s", np || both ? "partition '" : "",
		         np || both ? workload_name(w, WL_PARTITION, p) : "", np || both ? "'" : "",
		         both ? " with " : np && ng ? " and " : "", ng || both ? "GPU type '" : "",
		         ng || both ? workload_name(w, WL_GPU_TYPE, g) : "", ng || both ? "'" : "");
		off += (size_t)snprintf(jobs + off, off < sizeof jobs ? sizeof jobs - off : 0, "%sJobID %lld needs %s",
		                        off ? "; " : "", (long long)j->trace_id, what);
	}
	free(hp);
	free(hg);
	free(pair);
	if (bad == 0)
		return 0;
	char labels[512] = "";
	if (pl)
		label_values(cl, pl, labels, sizeof labels);
	if (gl)
		label_values(cl, gl, labels, sizeof labels);
	off = 0;
	if (bad == 1)
		ADD("%s, which no node of the scenario has (node labels: %s)", jobs, labels);
	else
		ADD("%lld jobs need a partition or GPU type that no node of the scenario has (node labels: "
		    "%s): %s%s", (long long)bad, labels, jobs, bad > SHOW ? "; ..." : "");
	return bad;
}
