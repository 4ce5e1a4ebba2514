/* hetlab compare DIR_A DIR_B [--metric M]... [--level L] [--format text|json|html]
 * [--out FILE] — policy A/B over seeds with paired intervals (docs/compare.md). */
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"

static const char usage[] =
	"usage: hetlab compare DIR_A DIR_B [--metric M]... [--level L] [--format text|json|html]"
	" [--out FILE]\n"
	"                      [--warmup DUR] [--cooldown DUR] [--arrivals-only]\n"
	"       hetlab compare --list-metrics\n";

static void list_metrics(FILE *out)
{
	fputs("metrics: NAME or NAME{LABEL=VALUE}, e.g. p95_wait{class=training}\n", out);
	metric_print_list(out);
}

/* The value of option argv[*i] ("--name V" or "--name=V"); NULL when it is
 * not that option. Sets *missing when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t len = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, len) != 0)
		return NULL;
	if (a[len] == '=')
		return a + len + 1;
	if (a[len] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int cmd_compare(int argc, char **argv)
{
	const char *dir[2] = { NULL, NULL }, *format = "text", *out_path = NULL;
	double level = 0.95;
	enum { MAX_METRICS = 64 };
	char names[MAX_METRICS][METRIC_NAME_MAX];
	const char *metrics[MAX_METRICS];
	size_t nmetric = 0;
	struct metric_window win = { 0 };
	char werr[256];
	int ndir = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		int wr = metric_window_arg(argc, argv, &i, &win, werr, sizeof werr);
		if (wr < 0) {
			fprintf(stderr, "hetlab compare: %s\n%s", werr, usage);
			return 2;
		} else if (wr > 0) {
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--list-metrics") == 0) {
			list_metrics(stdout);
			return 0;
		} else if ((v = opt_value(argc, argv, &i, "--metric", &missing))) {
			if (nmetric == MAX_METRICS) {
				fprintf(stderr, "hetlab compare: at most %d metrics\n", MAX_METRICS);
				return 2;
			}
			if (!metric_parse(v, names[nmetric], sizeof names[nmetric], werr, sizeof werr)) {
				fprintf(stderr, "hetlab compare: %s\n", werr);
				return 2;
			}
			int dup = 0;
			for (size_t k = 0; k < nmetric; k++)
				dup |= strcmp(metrics[k], names[nmetric]) == 0;
			if (!dup) {
				metrics[nmetric] = names[nmetric];
				nmetric++;
			}
		} else if ((v = opt_value(argc, argv, &i, "--level", &missing))) {
			char *end;
			errno = 0;
			level = strtod(v, &end);
			if (errno || end == v || *end || !(level > 0 && level < 1)) {
				fprintf(stderr, "hetlab compare: --level '%s': expected a number between 0 and 1 "
				        "(0.95)\n%s", v, usage);
				return 2;
			}
		} else if ((v = opt_value(argc, argv, &i, "--format", &missing))) {
			format = v;
		} else if ((v = opt_value(argc, argv, &i, "--out", &missing))) {
			out_path = v;
		} else if (missing) {
			fprintf(stderr, "hetlab compare: %s needs a value\n%s", a, usage);
			return 2;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "hetlab compare: unknown option '%s'\n%s", a, usage);
			return 2;
		} else if (ndir == 2) {
			fprintf(stderr, "hetlab compare: two directories only ('%s', '%s', '%s')\n%s",
			        dir[0], dir[1], a, usage);
			return 2;
		} else {
			dir[ndir++] = a;
		}
	}
	if (ndir < 2) {
		fprintf(stderr, "hetlab compare: two run directories needed, A and B\n%s", usage);
		return 2;
	}
	int fmt = compare_format_parse(format);
	if (fmt < 0) {
		fprintf(stderr, "hetlab compare: unknown format '%s' (text, json or html)\n%s", format,
		        usage);
		return 2;
	}

	char err[1024];
	int ret = 1;
	struct compare_side a, b;
	struct compare_result res;
	if (compare_side_load(dir[0], &win, &a, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		return 1;
	}
	if (compare_side_load(dir[1], &win, &b, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		goto out_a;
	}
	if (compare_build(&a, &b, metrics, nmetric, level, &res, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		goto out_b;
	}
	/* The output goes to a temporary sibling renamed over FILE at the end:
	 * never a half-written file. */
	FILE *out = stdout;
	char *tmp = NULL;
	if (out_path) {
		size_t len = strlen(out_path) + 32;
		if (!(tmp = malloc(len))) {
			fprintf(stderr, "hetlab compare: out of memory\n");
			goto out_res;
		}
		snprintf(tmp, len, "%s.tmp-%ld", out_path, (long)getpid());
		if (!(out = fopen(tmp, "w"))) {
			fprintf(stderr, "hetlab compare: %s: %s\n", out_path, strerror(errno));
			goto out_tmp;
		}
	}
	int prc = compare_print(&res, (enum compare_format)fmt, out);
	if (out_path) {
		if (fclose(out) != 0)
			prc = -1;
		if (prc == 0 && rename(tmp, out_path) != 0) {
			fprintf(stderr, "hetlab compare: %s: %s\n", out_path, strerror(errno));
			remove(tmp);
			goto out_tmp;
		}
		if (prc < 0)
			remove(tmp);
	}
	if (prc < 0) {
		fprintf(stderr, "hetlab compare: %s: cannot write the comparison\n",
		        out_path ? out_path : "stdout");
		goto out_tmp;
	}
	/* With --out, the warnings still reach the person at the terminal. */
	if (out_path)
		for (size_t w = 0; w < res.nwarning; w++)
			fprintf(stderr, "hetlab compare: warning: %s\n", res.warning[w]);
	ret = 0;
out_tmp:
	free(tmp);
out_res:
	compare_result_fini(&res);
out_b:
	compare_side_fini(&b);
out_a:
	compare_side_fini(&a);
	return ret;
}
