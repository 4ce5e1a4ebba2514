/* hetlab plan — the cheapest cluster that meets targets (docs/planning.md).
 *
 * The search is analysis/plan.c; this file is its evaluator: each candidate
 * is a directory OUT/cand-X1-X2-... with its scenario.json and one run
 * database per seed, seed-N.db, made by `hetlab run` processes (fork +
 * execv of /proc/self/exe, never a shell), N at a time. A database that
 * already reads as a finished run is reused, so a re-run with the same plan
 * costs nothing but the reading. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "analysis/tmpclean.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "config/plancfg.h"

struct evalctx {
	char exe[PATH_MAX];
	long par;
	size_t nrun;        /* runs started, for the closing line */
	size_t nreused;
};

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

/* The whole file, or NULL. */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4097 > cap) {
			cap = cap ? 2 * cap : 8192;
			char *ns = realloc(s, cap);
			if (!ns) {
				free(s);
				fclose(f);
				return NULL;
			}
			s = ns;
		}
		size_t r = fread(s + n, 1, 4096, f);
		n += r;
		if (r < 4096)
			break;
	}
	fclose(f);
	s[n] = '\0';
	return s;
}

/* Writes the candidate's scenario.json, or checks that the one there is the same. */
static int put_scenario(const char *path, const char *text, const char *out, char *err,
                        size_t errlen)
{
	char *old = read_all(path);
	if (old) {
		int same = strcmp(old, text) == 0;
		free(old);
		if (!same)
			snprintf(err, errlen, "%s differs from this plan's candidate (the plan or its "
			         "scenario changed since those runs): use another --out, or remove %s",
			         path, out);
		return same ? 0 : -1;
	}
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
	tmpclean_stale(path, NULL, 0);   /* those of dead processes */
	int slot = tmpclean_add(tmp);   /* removed on SIGINT/SIGTERM */
	FILE *f = fopen(tmp, "wb");
	size_t n = strlen(text);
	int bad = !f || fwrite(text, 1, n, f) != n;
	if (f)
		bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		tmpclean_drop(slot);
		return -1;
	}
	tmpclean_drop(slot);
	return 0;
}

static pid_t spawn(const char *exe, const char *scn, uint64_t seed, const char *db)
{
	char sd[32];
	snprintf(sd, sizeof sd, "%" PRIu64, seed);
	char *av[] = { (char *)"hetlab", (char *)"run", (char *)scn, (char *)"--seed", sd,
		(char *)"--out", (char *)db, (char *)"--quiet", NULL };
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		execv(exe, av);
		fprintf(stderr, "hetlab plan: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	tmpclean_child(pid);   /* gets the SIGINT/SIGTERM that ends the plan */
	return pid;
}

static int evaluate(void *vctx, const struct plan_spec *s, const long *x, double *val,
                    struct plan_usage *use, char *err, size_t errlen)
{
	struct evalctx *ctx = vctx;
	int ret = -1;
	char *name = plan_cand_name(s, x), *text = NULL, dir[PATH_MAX], scn[PATH_MAX + 32];
	char **db = calloc(s->nseed, sizeof *db);
	pid_t *pid = calloc(s->nseed, sizeof *pid);
	struct compare_run run;
	if (!name || !db || !pid) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	snprintf(dir, sizeof dir, "%s/%s", s->out, name);
	snprintf(scn, sizeof scn, "%s/scenario.json", dir);
	if (make_dirs(dir) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	if (plan_scenario_text(s, x, &text, err, errlen) < 0 ||
	    put_scenario(scn, text, s->out, err, errlen) < 0)
		goto out;
	/* Start the runs not done yet, par at a time. */
	size_t running = 0;
	for (size_t q = 0; q <= s->nseed; q++) {
		while (running > 0 && (q == s->nseed || running >= (size_t)ctx->par)) {
			int st;
			pid_t p = waitpid(-1, &st, 0);
			tmpclean_child_done(p);
			if (p < 0 && errno == EINTR)
				continue;
			if (p < 0) {
				snprintf(err, errlen, "waitpid: %s", strerror(errno));
				goto out;
			}
			for (size_t k = 0; k < s->nseed; k++)
				if (pid[k] == p) {
					pid[k] = 0;
					running--;
				}
		}
		if (q == s->nseed)
			break;
		if (asprintf(&db[q], "%s/seed-%" PRIu64 ".db", dir, s->seed[q]) < 0) {
			db[q] = NULL;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		char lerr[512];
		if (compare_run_load(db[q], &s->window, &run, lerr, sizeof lerr) == 0) {
			compare_run_fini(&run);
			ctx->nreused++;
			continue;
		}
		compare_run_fini(&run);
		if ((pid[q] = spawn(ctx->exe, scn, s->seed[q], db[q])) < 0) {
			pid[q] = 0;
			snprintf(err, errlen, "fork: %s", strerror(errno));
			goto out;
		}
		running++;
		ctx->nrun++;
	}
	/* Read the metrics (a missing database is a failed run). */
	for (size_t q = 0; q < s->nseed; q++) {
		char lerr[512];
		if (compare_run_load(db[q], &s->window, &run, lerr, sizeof lerr) < 0) {
			compare_run_fini(&run);
			snprintf(err, errlen, "%s: the run of seed %" PRIu64 " failed (%s); run `hetlab "
			         "run %s --seed %" PRIu64 "` to see why", name, s->seed[q], lerr, scn,
			         s->seed[q]);
			goto out;
		}
		for (size_t t = 0; t < s->ntarget; t++)
			val[q * s->ntarget + t] = metric_get(&run.m, s->target[t].metric);
		int ur = plan_run_usage(db[q], &run.m, &use[q], err, errlen);
		compare_run_fini(&run);
		if (ur < 0)
			goto out;
	}
	ret = 0;
out:
	for (size_t q = 0; pid && q < s->nseed; q++)
		if (pid[q] > 0)
			waitpid(pid[q], NULL, 0);
	for (size_t q = 0; db && q < s->nseed; q++)
		free(db[q]);
	free(db);
	free(pid);
	free(text);
	free(name);
	return ret;
}

int cmd_plan(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	bool exh = false, json = false;
	struct evalctx ctx = { .par = 1 };
	struct metric_window win = { 0 };
	struct cli_args p;
	int c;
	long long par;
	tmpclean_install();   /* SIGINT, SIGTERM: temporary files removed, the runs stopped */
	cli_args_init(&p, "plan", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_WARMUP:
		case OPT_COOLDOWN:
		case OPT_ARRIVALS_ONLY:
			if (cli_window_opt(&p, c, &win))
				return CLI_USAGE;
			break;
		case OPT_EXHAUSTIVE: exh = true; break;
		case OPT_JSON: json = true; break;
		case OPT_JOBS:
			if (cli_long(&p, 1, 1024, &par))
				return CLI_USAGE;
			ctx.par = (long)par;
			break;
		case OPT_OUT: out = p.val; break;
		case CLI_POS:
			if (file)
				return cli_usage(&p, "one plan file only (also got '%s')", p.val);
			file = p.val;
			break;
		}
	if (!file)
		return cli_usage(&p, "missing PLAN.json");
	char err[2048];
	struct plan_spec spec;
	if (plan_load(file, out, &spec, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab plan: %s\n", err);
		return 1;
	}
	if (win.given)
		spec.window = win;
	int rc = 1;
	struct plan_result res = { .answer = -1 };
	ssize_t n = readlink("/proc/self/exe", ctx.exe, sizeof ctx.exe - 1);
	if (n < 0) {
		fprintf(stderr, "hetlab plan: /proc/self/exe: %s\n", strerror(errno));
		goto out;
	}
	ctx.exe[n] = '\0';
	if (make_dirs(spec.out) < 0) {
		fprintf(stderr, "hetlab plan: cannot create %s: %s\n", spec.out, strerror(errno));
		goto out;
	}
	if (plan_search(&spec, exh, evaluate, &ctx, stderr, &res, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab plan: %s: %s\n", file, err);
		goto out;
	}
	fprintf(stderr, "hetlab plan: %zu runs made, %zu reused -> %s\n", ctx.nrun, ctx.nreused,
	        spec.out);
	/* OUT/plan.json: the frontier for `hetlab report` and `hetlab plot`. */
	char pj[PATH_MAX + 16], pjt[PATH_MAX + 48];
	snprintf(pj, sizeof pj, "%s/plan.json", spec.out);
	snprintf(pjt, sizeof pjt, "%s.tmp-%ld", pj, (long)getpid());
	FILE *jf = fopen(pjt, "w");
	int jbad = !jf || plan_print(&spec, &res, 1, jf) < 0;
	if (jf)
		jbad |= fclose(jf) != 0;
	if (jbad || rename(pjt, pj) != 0) {
		fprintf(stderr, "hetlab plan: cannot write %s: %s\n", pj, strerror(errno));
		unlink(pjt);
		goto out;
	}
	if (plan_print(&spec, &res, json, stdout) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "hetlab plan: cannot write the output\n");
		goto out;
	}
	rc = 0;
out:
	plan_result_fini(&res);
	plan_spec_fini(&spec);
	return rc;
}
