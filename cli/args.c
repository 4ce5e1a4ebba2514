/* args — the argument parser shared by every subcommand (cli/args.h):
 * long and short options from the command's table, --opt=V and --opt V,
 * bundles of short flags, "--", --help, and the value parsers whose errors
 * all exit 2. */
#include "cli/args.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_args_init(struct cli_args *p, const char *path, int argc, char **argv)
{
	memset(p, 0, sizeof *p);
	p->cmd = cli_cmd_find(path);
	snprintf(p->prog, sizeof p->prog, "%s", path);
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
}

int cli_usage(const struct cli_args *p, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hetlab %s: ", p->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hetlab %s --help'.\n", p->prog);
	return CLI_USAGE;
}

/* Exact names only: no prefix abbreviations, so that adding an option never
 * changes what an old command line means. */
static const struct cli_opt *find_long(const struct cli_cmd *cmd, const char *name, size_t n)
{
	for (const struct cli_opt *o = cmd && cmd->opts ? cmd->opts : NULL; o && o->key; o++)
		if (o->lng && strncmp(o->lng, name, n) == 0 && o->lng[n] == '\0')
			return o;
	return NULL;
}

static const struct cli_opt *find_short(const struct cli_cmd *cmd, char c)
{
	for (const struct cli_opt *o = cmd && cmd->opts ? cmd->opts : NULL; o && o->key; o++)
		if (o->shrt == c)
			return o;
	return NULL;
}

static int take(struct cli_args *p, const struct cli_opt *o)
{
	p->cur = o;
	return o->key;
}

int cli_next(struct cli_args *p)
{
	p->val = NULL;
	p->cur = NULL;
	if (p->shortp && *p->shortp) {
		/* inside "-abc" */
		char c = *p->shortp++;
		const struct cli_opt *o = find_short(p->cmd, c);
		snprintf(p->optbuf, sizeof p->optbuf, "-%c", c);
		p->opt = p->optbuf;
		if (c == 'h' && !o)
			goto help;
		if (!o) {
			cli_usage(p, "unknown option -%c", c);
			return CLI_ERR;
		}
		if (o->arg) {
			if (*p->shortp) {
				p->val = p->shortp;
			} else if (!(o->flags & CLI_OPTARG) && p->i < p->argc) {
				p->val = p->argv[p->i++];
			} else if ((o->flags & CLI_OPTARG) && p->i < p->argc && p->argv[p->i][0] != '-') {
				p->val = p->argv[p->i++];
			} else if (!(o->flags & CLI_OPTARG)) {
				cli_usage(p, "-%c needs a value (%s)", c, o->arg);
				return CLI_ERR;
			}
			p->shortp = NULL;
		}
		return take(p, o);
	}
	p->shortp = NULL;
	if (p->i >= p->argc)
		return CLI_END;
	const char *a = p->argv[p->i++];
	if (p->dashdash || a[0] != '-' || a[1] == '\0') {
		p->val = a;
		return CLI_POS;
	}
	if (strcmp(a, "--") == 0) {
		p->dashdash = true;
		return cli_next(p);
	}
	if (a[1] == '-') {
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		const struct cli_opt *o = find_long(p->cmd, name, n);
		snprintf(p->optbuf, sizeof p->optbuf, "--%.*s", (int)n, name);
		p->opt = p->optbuf;
		if (!o && n == 4 && strncmp(name, "help", 4) == 0)
			goto help;
		if (!o) {
			cli_usage(p, "unknown option %s", p->optbuf);
			return CLI_ERR;
		}
		if (!o->arg) {
			if (eq) {
				cli_usage(p, "%s takes no value", p->optbuf);
				return CLI_ERR;
			}
			return take(p, o);
		}
		if (eq) {
			p->val = eq + 1;
		} else if (o->flags & CLI_OPTARG) {
			if (p->i < p->argc && p->argv[p->i][0] != '-')
				p->val = p->argv[p->i++];
		} else if (p->i < p->argc) {
			p->val = p->argv[p->i++];
		} else {
			cli_usage(p, "%s needs a value (%s)", p->optbuf, o->arg);
			return CLI_ERR;
		}
		return take(p, o);
	}
	p->shortp = a + 1;
	return cli_next(p);

help:
	cli_print_help(stdout, p->cmd, p->prog);
	return CLI_HELP;
}

int cli_long(const struct cli_args *p, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = p->val ? strtoll(p->val, &end, 10) : 0;
	if (!p->val || !*p->val || errno || *end || v < lo || v > hi) {
		if (hi == LLONG_MAX)
			return cli_usage(p, "%s: expected an integer >= %lld, got '%s'", p->opt, lo,
			                 p->val ? p->val : "");
		return cli_usage(p, "%s: expected an integer in [%lld, %lld], got '%s'", p->opt, lo, hi,
		                 p->val ? p->val : "");
	}
	*out = v;
	return 0;
}

int cli_double(const struct cli_args *p, double lo, double hi, double *out)
{
	char *end;
	double v = p->val ? strtod(p->val, &end) : NAN;
	if (!p->val || !*p->val || *end || !(v >= lo && v <= hi))
		return cli_usage(p, "%s: expected a number in [%g, %g], got '%s'", p->opt, lo, hi,
		                 p->val ? p->val : "");
	*out = v;
	return 0;
}

int cli_choice(const struct cli_args *p, const char *words, int *out)
{
	const char *s = words;
	size_t vn = p->val ? strlen(p->val) : 0;
	for (int k = 0; p->val && *s; k++) {
		size_t n = strcspn(s, " ");
		if (n == vn && strncmp(s, p->val, n) == 0) {
			*out = k;
			return 0;
		}
		s += n;
		while (*s == ' ')
			s++;
	}
	return cli_usage(p, "%s: expected one of %s, got '%s'", p->opt, words, p->val ? p->val : "");
}
