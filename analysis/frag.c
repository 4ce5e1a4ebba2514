/* frag — the FGD paper's fragmentation experiment; see frag.h. */
#include "analysis/frag.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <sqlite3.h>

#include "analysis/plot.h"

#define FRAG_POPULARITY_PCT 95.0        /* the reference's typical-pod threshold */
#define FRAG_NONZERO_CPU 100            /* Kubernetes' default for a 0 CPU request */

/* ---- input -------------------------------------------------------------------- */

void frag_input_free(struct frag_input *in)
{
	free(in->node);
	free(in->pod);
	gs_typical_free(&in->typ);
	memset(in, 0, sizeof *in);
}

static int finish_input(struct frag_input *in)
{
	in->gpu_milli_cap = 0;
	for (int32_t i = 0; i < in->nnodes; i++) {
		struct gs_node *n = &in->node[i];
		in->gpu_milli_cap += (int64_t)n->ngpu * GS_MILLI;
	}
	if (gs_typical_build(in->pod, in->npods, FRAG_POPULARITY_PCT, &in->typ) < 0)
		return -1;
	for (int32_t i = 0; i < in->nnodes; i++)
		in->node[i].frag = gs_frag(&in->node[i], &in->typ);
	return 0;
}

int frag_input_make(const struct gs_node *nodes, int32_t nnodes, const struct gs_req *pods,
                    int32_t npods, struct frag_input *in)
{
	memset(in, 0, sizeof *in);
	in->node = calloc(nnodes > 0 ? (size_t)nnodes : 1, sizeof *in->node);
	in->pod = calloc(npods > 0 ? (size_t)npods : 1, sizeof *in->pod);
	if (!in->node || !in->pod) {
		frag_input_free(in);
		return -1;
	}
	memcpy(in->node, nodes, (size_t)nnodes * sizeof *nodes);
	memcpy(in->pod, pods, (size_t)npods * sizeof *pods);
	in->nnodes = nnodes;
	in->npods = npods;
	for (int32_t i = 0; i < nnodes; i++)
		if (in->node[i].cpu_cap == 0)
			in->node[i].cpu_cap = in->node[i].cpu_free;
	if (finish_input(in) < 0) {
		frag_input_free(in);
		return -1;
	}
	return 0;
}

/* Splits a CSV line (no quoting in these files) into at most max fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	return n;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0' || x < 0)
		return -1;
	*v = x;
	return 0;
}

static int grow(void **p, int32_t *cap, int32_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	int32_t c = *cap ? *cap * 2 : 1024;
	void *q = realloc(*p, (size_t)c * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int read_nodes(const char *path, struct frag_input *in, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[1024], *fld[8];
	int32_t cap = 0;
	long ln = 0;
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (ln == 1) {
			if (!strstr(line, "sn,cpu_milli,memory_mib,gpu")) {
				snprintf(err, errlen, "%s:1: not an openb node list (header %s)", path,
				         "sn,cpu_milli,memory_mib,gpu,model expected");
				goto out;
			}
			continue;
		}
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		int64_t cpu, mem, gpu;
		if (split(line, fld, 8) < 5 || parse_i64(fld[1], &cpu) || parse_i64(fld[2], &mem) ||
		    parse_i64(fld[3], &gpu) || gpu > GS_MAX_GPUS) {
			snprintf(err, errlen, "%s:%ld: expected sn,cpu_milli,memory_mib,gpu(0..%d),model",
			         path, ln, GS_MAX_GPUS);
			goto out;
		}
		if (grow((void **)&in->node, &cap, in->nnodes, sizeof *in->node) < 0) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
		struct gs_node *n = &in->node[in->nnodes++];
		memset(n, 0, sizeof *n);
		n->ngpu = (int32_t)gpu;
		for (int i = 0; i < n->ngpu; i++)
			n->gpu_free[i] = GS_MILLI;
		n->cpu_free = n->cpu_cap = cpu;
		n->mem_free = mem;
	}
	if (in->nnodes == 0)
		snprintf(err, errlen, "%s: no nodes", path);
	else
		rc = 0;
out:
	fclose(f);
	return rc;
}

static int read_pods(const char *path, struct frag_input *in, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048], *fld[16];
	int32_t cap = 0;
	long ln = 0;
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (ln == 1) {
			if (!strstr(line, "name,cpu_milli,memory_mib,num_gpu,gpu_milli")) {
				snprintf(err, errlen, "%s:1: not an openb pod list (header "
				         "name,cpu_milli,memory_mib,num_gpu,gpu_milli,... expected)", path);
				goto out;
			}
			continue;
		}
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		int64_t cpu, mem, ng, gm;
		if (split(line, fld, 16) < 5 || parse_i64(fld[1], &cpu) || parse_i64(fld[2], &mem) ||
		    parse_i64(fld[3], &ng) || parse_i64(fld[4], &gm) || ng > GS_MAX_GPUS ||
		    gm > GS_MILLI || (gm < GS_MILLI && ng > 1)) {
			snprintf(err, errlen, "%s:%ld: expected name,cpu_milli,memory_mib,num_gpu(0..%d),"
			         "gpu_milli(0..1000, < 1000 only with num_gpu 1)", path, ln, GS_MAX_GPUS);
			goto out;
		}
		if (grow((void **)&in->pod, &cap, in->npods, sizeof *in->pod) < 0) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
		struct gs_req *r = &in->pod[in->npods++];
		r->cpu_milli = cpu > 0 ? cpu : FRAG_NONZERO_CPU;
		r->mem_mib = mem;
		r->num_gpu = (int32_t)(gm > 0 ? ng : 0);
		r->gpu_milli = (int32_t)(ng > 0 ? gm : 0);
	}
	if (in->npods == 0)
		snprintf(err, errlen, "%s: no pods", path);
	else
		rc = 0;
out:
	fclose(f);
	return rc;
}

int frag_input_load(const char *nodes_csv, const char *pods_csv, struct frag_input *in,
                    char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	if (read_nodes(nodes_csv, in, err, errlen) < 0 || read_pods(pods_csv, in, err, errlen) < 0)
		goto fail;
	if (finish_input(in) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (in->gpu_milli_cap == 0) {
		snprintf(err, errlen, "%s: the cluster has no GPUs", nodes_csv);
		goto fail;
	}
	return 0;
fail:
	frag_input_free(in);
	return -1;
}

/* ---- the protocol ------------------------------------------------------------------ */

static int64_t req_milli(const struct gs_req *r)
{
	return (int64_t)r->num_gpu * r->gpu_milli;
}

int frag_sequence(const struct frag_input *in, double inflate, void *rng_state, int32_t **seq,
                  int32_t *n)
{
	gsl_rng *rng = rng_state;
	int32_t cap = in->npods + 64, k = 0;
	int32_t *s = malloc((size_t)cap * sizeof *s);
	if (!s)
		return -1;
	int64_t total = 0;
	for (int32_t i = 0; i < in->npods; i++) {
		s[k++] = i;
		total += req_milli(&in->pod[i]);
	}
	double target = inflate * (double)in->gpu_milli_cap;
	if ((double)total > target) {
		/* Tune down: drop random pods until under the target. */
		while (k > 0 && (double)total > target) {
			int32_t j = (int32_t)gsl_rng_uniform_int(rng, (unsigned long)k);
			total -= req_milli(&in->pod[s[j]]);
			memmove(&s[j], &s[j + 1], (size_t)(k - j - 1) * sizeof *s);
			k--;
		}
	} else if (in->npods > 0) {
		/* Tune up. As the reference does, the stop test adds the candidate's
		 * per-GPU milli (not num_gpu × milli), so the total may end slightly
		 * above the target when a multi-GPU pod is the last one taken. */
		for (;;) {
			int32_t j = (int32_t)gsl_rng_uniform_int(rng, (unsigned long)in->npods);
			const struct gs_req *r = &in->pod[j];
			if ((double)(total + r->gpu_milli) > target)
				break;
			if (grow((void **)&s, &cap, k, sizeof *s) < 0) {
				free(s);
				return -1;
			}
			s[k++] = j;
			total += req_milli(r);
		}
	}
	gsl_ran_shuffle(rng, s, (size_t)k, sizeof *s);
	*seq = s;
	*n = k;
	return 0;
}

static void record(struct frag_result *o, int32_t pct, int64_t arrived, int64_t alloc,
                   double frag, int32_t placed, int32_t failed)
{
	if (o->nsteps >= FRAG_MAX_STEPS)
		return;
	struct frag_step *s = &o->step[o->nsteps++];
	s->pct = pct;
	s->arrived_milli = arrived;
	s->alloc_milli = alloc;
	s->frag_milli = frag;
	s->placed = placed;
	s->failed = failed;
}

int frag_run(const struct frag_input *in, const struct gpu_placement *gp, double inflate,
             uint64_t seed, struct frag_result *out, char *err, size_t errlen)
{
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	memset(out, 0, sizeof *out);
	out->policy = gp->name;
	out->seed = seed;
	int rc = -1;
	int32_t *seq = NULL, nseq = 0;
	struct gs_node *node = NULL;
	struct gs_memo *memo = NULL;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		goto oom;
	gsl_rng_set(rng, (unsigned long)seed);
	if (frag_sequence(in, inflate, rng, &seq, &nseq) < 0)
		goto oom;
	node = malloc((size_t)in->nnodes * sizeof *node);
	memo = gs_memo_new(&in->typ);
	if (!node || !memo)
		goto oom;
	memcpy(node, in->node, (size_t)in->nnodes * sizeof *node);
	double frag = 0;
	for (int32_t i = 0; i < in->nnodes; i++)
		frag += node[i].frag;
	struct gs_ctx ctx = { .typ = &in->typ, .memo = memo, .u = 0 };
	int64_t arrived = 0, alloc = 0, cap = in->gpu_milli_cap;
	int32_t next = 1;
	out->npods = nseq;
	for (int32_t q = 0; q < nseq; q++) {
		const struct gs_req *r = &in->pod[seq[q]];
		ctx.u = gsl_rng_uniform(rng);
		int best = -1, bs = 0;
		unsigned long fit = 0;
		uint32_t bg = 0;
		for (int32_t i = 0; i < in->nnodes; i++) {
			if (!gs_fits(&node[i], r))
				continue;
			uint32_t g;
			int s;
			if (gp->random_node) {
				/* A uniform draw among the fitting nodes, by reservoir. */
				fit++;
				if (gsl_rng_uniform_int(rng, fit) != 0)
					continue;
				s = gp->score(&node[i], r, &ctx, &g);
				best = i;
				bg = g;
				continue;
			}
			s = gp->score(&node[i], r, &ctx, &g);
			if (best < 0 || s > bs) {   /* ties: the lowest index stays */
				best = i;
				bs = s;
				bg = g;
			}
		}
		if (best >= 0) {
			struct gs_node *n = &node[best];
			gs_apply(n, r, bg);
			assert(n->cpu_free >= 0 && n->mem_free >= 0);
			for (int i = 0; i < n->ngpu; i++)
				assert(n->gpu_free[i] >= 0 && n->gpu_free[i] <= GS_MILLI);
			frag -= n->frag;
			n->frag = gs_frag(n, &in->typ);
			frag += n->frag;
			alloc += req_milli(r);
			out->cpu_alloc += r->cpu_milli;
			out->mem_alloc += r->mem_mib;
			out->placed++;
		} else {
			out->failed++;
		}
		arrived += req_milli(r);
		while (next < FRAG_MAX_STEPS && (double)arrived * 100.0 >= (double)next * (double)cap) {
			record(out, next, arrived, alloc, frag, out->placed, out->failed);
			next++;
		}
	}
	out->arrived_milli = arrived;
	out->alloc_milli = alloc;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "%s seed %llu: out of memory", gp->name, (unsigned long long)seed);
done:
	gs_memo_free(memo);
	free(node);
	free(seq);
	if (rng)
		gsl_rng_free(rng);
	out->wall_s = (double)clock() / CLOCKS_PER_SEC - t0;
	return rc;
}

/* ---- database ------------------------------------------------------------------------ */

static const char schema[] =
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE frag_run(policy TEXT, seed INTEGER, pods INTEGER, placed INTEGER,"
	" failed INTEGER, arrived_milli INTEGER, alloc_milli INTEGER, cpu_alloc_milli INTEGER,"
	" mem_alloc_mib INTEGER, cpu_s REAL, PRIMARY KEY(policy, seed));"
	"CREATE TABLE frag_step(policy TEXT, seed INTEGER, pct INTEGER, arrived_milli INTEGER,"
	" alloc_milli INTEGER, alloc_ratio REAL, frag_milli REAL, frag_ratio REAL,"
	" placed INTEGER, failed INTEGER, PRIMARY KEY(policy, seed, pct));";

static int dbfail(sqlite3 *db, const char *path, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

int frag_write_db(const char *path, const struct frag_meta *m, int n, const struct frag_result *r,
                  char *err, size_t errlen)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
	unlink(tmp);
	sqlite3 *db = NULL;
	sqlite3_stmt *sm = NULL, *sr = NULL, *ss = NULL;
	int rc = -1;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "cannot create", err, errlen);
		goto out;
	}
	if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "creating tables", err, errlen);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &sm, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO frag_run VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &sr,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO frag_step VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &ss,
	                       NULL) != SQLITE_OK) {
		dbfail(db, tmp, "preparing", err, errlen);
		goto out;
	}
	char v[64];
	snprintf(v, sizeof v, "%.17g", m->inflate);
	char c[32];
	snprintf(c, sizeof c, "%lld", (long long)m->gpu_milli_cap);
	const char *kv[][2] = { { "kind", "frag" }, { "schema_version", "1" },
	                        { "nodes", m->nodes ? m->nodes : "" },
	                        { "pods", m->pods ? m->pods : "" }, { "inflate", v },
	                        { "gpu_milli_capacity", c } };
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
		sqlite3_bind_text(sm, 1, kv[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(sm, 2, kv[i][1], -1, SQLITE_STATIC);
		if (sqlite3_step(sm) != SQLITE_DONE) {
			dbfail(db, tmp, "writing meta", err, errlen);
			goto out;
		}
		sqlite3_reset(sm);
	}
	double capd = (double)m->gpu_milli_cap;
	for (int k = 0; k < n; k++) {
		const struct frag_result *x = &r[k];
		sqlite3_bind_text(sr, 1, x->policy, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sr, 2, (sqlite3_int64)x->seed);
		sqlite3_bind_int(sr, 3, x->npods);
		sqlite3_bind_int(sr, 4, x->placed);
		sqlite3_bind_int(sr, 5, x->failed);
		sqlite3_bind_int64(sr, 6, x->arrived_milli);
		sqlite3_bind_int64(sr, 7, x->alloc_milli);
		sqlite3_bind_int64(sr, 8, x->cpu_alloc);
		sqlite3_bind_int64(sr, 9, x->mem_alloc);
		sqlite3_bind_double(sr, 10, x->wall_s);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			dbfail(db, tmp, "writing frag_run", err, errlen);
			goto out;
		}
		sqlite3_reset(sr);
		for (int j = 0; j < x->nsteps; j++) {
			const struct frag_step *s = &x->step[j];
			double idle = capd - (double)s->alloc_milli;
			sqlite3_bind_text(ss, 1, x->policy, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ss, 2, (sqlite3_int64)x->seed);
			sqlite3_bind_int(ss, 3, s->pct);
			sqlite3_bind_int64(ss, 4, s->arrived_milli);
			sqlite3_bind_int64(ss, 5, s->alloc_milli);
			sqlite3_bind_double(ss, 6, (double)s->alloc_milli / capd);
			sqlite3_bind_double(ss, 7, s->frag_milli);
			sqlite3_bind_double(ss, 8, idle > 0 ? s->frag_milli / idle : 0.0);
			sqlite3_bind_int(ss, 9, s->placed);
			sqlite3_bind_int(ss, 10, s->failed);
			if (sqlite3_step(ss) != SQLITE_DONE) {
				dbfail(db, tmp, "writing frag_step", err, errlen);
				goto out;
			}
			sqlite3_reset(ss);
		}
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "commit", err, errlen);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sm);
	sqlite3_finalize(sr);
	sqlite3_finalize(ss);
	if (db && sqlite3_close(db) != SQLITE_OK && rc == 0)
		rc = dbfail(db, tmp, "close", err, errlen);
	if (rc == 0 && rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

int frag_db_is(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int is = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='kind'", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		is = v && strcmp((const char *)v, "frag") == 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return is;
}

/* Per (policy, pct): n, mean and sample sd of alloc_ratio and frag_ratio,
 * policies in the order they were run. */
static const char agg_sql[] =
	"SELECT s.policy, s.pct, COUNT(*), AVG(s.alloc_ratio), AVG(s.alloc_ratio*s.alloc_ratio),"
	" AVG(s.frag_ratio), AVG(s.frag_ratio*s.frag_ratio)"
	" FROM frag_step s JOIN (SELECT policy, MIN(rowid) AS o FROM frag_run GROUP BY policy) p"
	" ON p.policy = s.policy %s GROUP BY s.policy, s.pct ORDER BY p.o, s.pct";

static double sd_of(int n, double m, double m2)
{
	if (n < 2)
		return 0;
	double v = (m2 - m * m) * n / (n - 1);
	return v > 0 ? sqrt(v) : 0;
}

static int agg_open(const char *path, int pct, sqlite3 **db, sqlite3_stmt **st, char *err,
                    size_t errlen)
{
	char sql[1024], where[64] = "";
	if (pct > 0)
		snprintf(where, sizeof where, "WHERE s.pct = %d", pct);
	snprintf(sql, sizeof sql, agg_sql, where);
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return dbfail(*db, path, "cannot open", err, errlen);
	if (sqlite3_prepare_v2(*db, sql, -1, st, NULL) != SQLITE_OK)
		return dbfail(*db, path, "not a frag database", err, errlen);
	return 0;
}

int frag_table_at(const char *path, int pct, struct frag_cell *cells, int max, int *ncells,
                  char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	*ncells = 0;
	int rc = agg_open(path, pct, &db, &st, err, errlen);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW && *ncells < max) {
		struct frag_cell *c = &cells[(*ncells)++];
		snprintf(c->policy, sizeof c->policy, "%s", (const char *)sqlite3_column_text(st, 0));
		c->n = sqlite3_column_int(st, 2);
		c->alloc_mean = 100 * sqlite3_column_double(st, 3);
		c->alloc_sd = 100 * sd_of(c->n, sqlite3_column_double(st, 3), sqlite3_column_double(st, 4));
		c->frag_mean = 100 * sqlite3_column_double(st, 5);
		c->frag_sd = 100 * sd_of(c->n, sqlite3_column_double(st, 5), sqlite3_column_double(st, 6));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int frag_report(const char *path, int json, FILE *out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = agg_open(path, 0, &db, &st, err, errlen);
	if (rc < 0)
		goto done;
	char cur[64] = "";
	int first = 1;
	if (json)
		fprintf(out, "{\"kind\":\"frag\",\"policies\":[");
	else
		fprintf(out, "frag report: %s\nper policy, per arrived %% of GPU capacity: "
		        "GPU allocation %% and fragmentation %% of idle GPU (mean ± sd over seeds)\n",
		        path);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *pol = (const char *)sqlite3_column_text(st, 0);
		int pct = sqlite3_column_int(st, 1), n = sqlite3_column_int(st, 2);
		double am = sqlite3_column_double(st, 3), fm = sqlite3_column_double(st, 5);
		double as = sd_of(n, am, sqlite3_column_double(st, 4));
		double fs = sd_of(n, fm, sqlite3_column_double(st, 6));
		if (strcmp(pol, cur) != 0) {
			if (json)
				fprintf(out, "%s{\"policy\":\"%s\",\"steps\":[", *cur ? "]}," : "", pol);
			else
				fprintf(out, "\n%s\n  arrived%%  seeds  alloc%%   ±sd    frag%%   ±sd\n", pol);
			snprintf(cur, sizeof cur, "%s", pol);
			first = 1;
		}
		if (json)
			fprintf(out, "%s{\"arrived_pct\":%d,\"seeds\":%d,\"alloc_mean\":%.6f,"
			        "\"alloc_sd\":%.6f,\"frag_mean\":%.6f,\"frag_sd\":%.6f}",
			        first ? "" : ",", pct, n, am, as, fm, fs);
		else
			fprintf(out, "  %8d  %5d  %6.2f  %5.2f  %6.2f  %5.2f\n", pct, n, 100 * am,
			        100 * as, 100 * fm, 100 * fs);
		first = 0;
	}
	if (json)
		fprintf(out, "%s]}\n", *cur ? "]}" : "");
done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int frag_plot(const char *path, const char *dir, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	enum { MAXP = 16 };
	char names[MAXP][32];
	double *xs[MAXP] = { 0 }, *ys[MAXP] = { 0 };
	struct plot_series s[MAXP];
	int np = -1, rc = agg_open(path, 0, &db, &st, err, errlen);
	int64_t cnt[MAXP] = { 0 };
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *pol = (const char *)sqlite3_column_text(st, 0);
		if (np < 0 || strcmp(pol, names[np]) != 0) {
			if (np + 1 >= MAXP)
				break;
			np++;
			snprintf(names[np], sizeof names[np], "%s", pol);
			xs[np] = malloc(FRAG_MAX_STEPS * sizeof(double));
			ys[np] = malloc(FRAG_MAX_STEPS * sizeof(double));
			if (!xs[np] || !ys[np]) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
		}
		if (cnt[np] < FRAG_MAX_STEPS) {
			xs[np][cnt[np]] = sqlite3_column_int(st, 1);
			ys[np][cnt[np]++] = 100 * sqlite3_column_double(st, 3);
		}
	}
	np++;
	if (rc == 0) {
		for (int i = 0; i < np; i++)
			s[i] = (struct plot_series){ .title = names[i], .n = cnt[i], .x = xs[i], .y = ys[i] };
		struct plot_fig f = { .name = "frag_alloc",
		                      .title = "GPU allocation vs arrived workload (mean over seeds)",
		                      .xlabel = "arrived GPU request (% of capacity)",
		                      .ylabel = "GPU allocation ratio (%)",
		                      .extra = "set key bottom right; set grid" };
		const char *nm[] = { "frag_alloc" };
		rc = plot_mkdir(dir, err, errlen);
		if (rc == 0)
			rc = plot_xy(dir, &f, PLOT_LINES, np, s, err, errlen);
		if (rc == 0) {
			int pr = plot_render(NULL, dir, 1, nm, err, errlen);
			if (pr == PLOT_NOPROG)
				fprintf(stderr, "note: %s (the .dat and .gp files are written)\n", err);
			else
				rc = pr;
		}
	}
	for (int i = 0; i < MAXP; i++) {
		free(xs[i]);
		free(ys[i]);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
