/* helpgen — everything printed from the command table (cli/cmdtab.c): the
 * --help text of each command, the `hetlab help` overview, the man pages
 * (roff, man(7) macros) and the bash and zsh completion scripts. Reads the
 * table only; writes to the FILE it is given. */
#include "cli/args.h"
#include "cli/cmd.h"
#include "live/exec/executor.h"
#include "policies/policy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIDTH 79
#define OPTCOL 28

static const char exit_text[] =
	"Exit status: 0 success, 1 the work failed (bad input file, failed run),\n"
	"2 usage error (unknown option, bad or missing argument).";

/* Prints text from column col, wrapping at WIDTH with later lines indented
 * to ind. */
static void wrap(FILE *out, const char *text, int col, int ind)
{
	const char *s = text;
	bool first = true;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (!first && col + 1 + (int)n > WIDTH) {
			fprintf(out, "\n%*s", ind, "");
			col = ind;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fwrite(s, 1, n, out);
		col += (int)n;
		s += n;
		first = false;
	}
	fputc('\n', out);
}

static bool has_opts(const struct cli_cmd *c)
{
	return c->opts && c->opts[0].key;
}

/* "-o, --out=FILE" */
static int opt_label(char *buf, size_t len, const struct cli_opt *o)
{
	char val[96] = "";
	if (o->arg)
		snprintf(val, sizeof val, o->flags & CLI_OPTARG ? "[=%s]" : "=%s", o->arg);
	if (o->shrt)
		return snprintf(buf, len, "-%c, --%s%s", o->shrt, o->lng, val);
	return snprintf(buf, len, "    --%s%s", o->lng, val);
}

void cli_print_help(FILE *out, const struct cli_cmd *c, const char *prog)
{
	if (!c) {
		cli_print_overview(out);
		return;
	}
	if (c->subs) {
		fprintf(out, "usage: hetlab %s COMMAND [OPTIONS] ...\n\n%s\n\nCommands:\n", prog, c->desc);
		for (const struct cli_cmd *s = c->subs; s->name; s++) {
			char lab[128];
			int n = snprintf(lab, sizeof lab, "  %s %s", s->name, s->args ? s->args : "");
			fprintf(out, "%s%*s", lab, n < OPTCOL ? OPTCOL - n : 1, "");
			wrap(out, s->summary, n < OPTCOL ? OPTCOL : n + 1, OPTCOL);
		}
		fprintf(out, "\n'hetlab %s COMMAND --help' tells more.\n%s\n", prog, exit_text);
		if (c->see)
			fprintf(out, "See %s.\n", c->see);
		return;
	}
	fprintf(out, "usage: hetlab %s%s%s%s\n\n%s\n", prog, has_opts(c) ? " [OPTIONS]" : "",
	        c->args ? " " : "", c->args ? c->args : "", c->desc);
	fprintf(out, "\nOptions:\n");
	for (const struct cli_opt *o = c->opts; o && o->key; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		char lab[128], help[600];
		int n = opt_label(lab, sizeof lab, o);
		snprintf(help, sizeof help, "%s%s", o->help, o->flags & CLI_REPEAT ? " (repeatable)" : "");
		fprintf(out, "  %s", lab);
		if (n + 2 + 2 > OPTCOL) {
			fprintf(out, "\n%*s", OPTCOL, "");
		} else {
			fprintf(out, "%*s", OPTCOL - n - 2, "");
		}
		wrap(out, help, OPTCOL, OPTCOL);
	}
	fprintf(out, "  -h, --help%*sprint this help and exit\n", OPTCOL - 12, "");
	fprintf(out, "\n%s\n", exit_text);
	if (c->see)
		fprintf(out, "See %s.\n", c->see);
}

void cli_docs_line(char *buf, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], real[PATH_MAX];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		/* installed: PREFIX/bin/hetlab beside PREFIX/share/doc/hetlab */
		snprintf(path, sizeof path, "%s/../share/doc/hetlab", exe);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && realpath(path, real)) {
			snprintf(buf, len, "Docs: man hetlab, man hetlab-COMMAND, and %s.", real);
			return;
		}
		/* a build in the source tree: build/hetlab beside docs/ */
		snprintf(path, sizeof path, "%s/../docs/results.md", exe);
		if (stat(path, &st) == 0 && realpath(path, real)) {
			char *s = strrchr(real, '/');
			if (s)
				*s = '\0';
			snprintf(buf, len, "Docs: %s (the source tree's docs/).", real);
			return;
		}
	}
	snprintf(buf, len, "Docs: man hetlab, man hetlab-COMMAND.");
}

void cli_print_overview(FILE *out)
{
	char docs[PATH_MAX + 128];
	fprintf(out, "hetlab %s — discrete-event simulator and policy lab for heterogeneous clusters\n\n"
	             "usage: hetlab COMMAND [OPTIONS] [ARGUMENTS]\n"
	             "       hetlab -h | --help | -V | --version\n\nCommands:\n", HETLAB_VERSION);
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		fprintf(out, "  %-10s", c->name);
		wrap(out, c->summary, 12, 12);
	}
	cli_docs_line(docs, sizeof docs);
	fprintf(out, "\nEvery command takes --help (the same text as 'hetlab help COMMAND'),\n"
	             "--opt=value as well as --opt value, and -- to end the options.\n%s\n%s\n",
	        exit_text, docs);
}

/* ---- man pages ----------------------------------------------------------- */

/* roff-escaped text: backslashes, hyphens, and lines that would start a request. */
static void roff(FILE *out, const char *s)
{
	bool bol = true;
	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\'' || *s == '`'))
			fputs("\\&", out);
		bol = false;
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else if (*s == '`')
			fputc('\'', out);
		else
			fputc(*s, out);
		if (*s == '\n')
			bol = true;
	}
}

/* Paragraphs of desc: a line that starts with two spaces is kept as it is. */
static void roff_desc(FILE *out, const char *desc)
{
	const char *s = desc;
	while (*s) {
		size_t n = strcspn(s, "\n");
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)n, s);
		if (line[0] == ' ' && line[1] == ' ') {
			fputs(".RS\n.nf\n", out);
			roff(out, line + 2);
			fputs("\n.fi\n.RE\n", out);
		} else {
			roff(out, line);
			fputc('\n', out);
		}
		s += n;
		if (*s)
			s++;
	}
}

static void man_opts(FILE *out, const struct cli_cmd *c)
{
	for (const struct cli_opt *o = c->opts; o && o->key; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		fputs(".TP\n", out);
		if (o->shrt)
			fprintf(out, "\\fB\\-%c\\fR, ", o->shrt);
		fputs("\\fB\\-\\-", out);
		roff(out, o->lng);
		fputs("\\fR", out);
		if (o->arg) {
			fputs(o->flags & CLI_OPTARG ? "[=\\fI" : "=\\fI", out);
			roff(out, o->arg);
			fputs(o->flags & CLI_OPTARG ? "\\fR]" : "\\fR", out);
		}
		fputc('\n', out);
		roff(out, o->help);
		if (o->flags & CLI_REPEAT)
			fputs(" (repeatable)", out);
		fputs(".\n", out);
	}
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the help and exit.\n", out);
}

static void man_synopsis(FILE *out, const char *prog, const struct cli_cmd *c)
{
	fputs(".B hetlab ", out);
	roff(out, prog);
	fputc('\n', out);
	if (has_opts(c))
		fputs("[\\fIOPTIONS\\fR]\n", out);
	if (c->args) {
		roff(out, c->args);
		fputc('\n', out);
	}
	fputs(".br\n", out);
}

static void man_tail(FILE *out, const char *see, bool top)
{
	fputs(".SH EXIT STATUS\n.TP\n0\nsuccess.\n.TP\n1\nthe work failed: a bad input file, a failed run, "
	      "a check that did not pass.\n.TP\n2\na usage error: an unknown option, a bad or missing "
	      "argument.\n", out);
	fputs(".SH ENVIRONMENT\n.TP\n.B HETLAB_TRACES\nthe trace directory (default ../shared/traces).\n"
	      ".TP\n.B HETLAB_NVML_LIB\nthe NVML library live mode loads (default libnvidia\\-ml.so.1).\n", out);
	fputs(".SH SEE ALSO\n", out);
	if (see) {
		fputs("The documentation in /usr/share/doc/hetlab (the source tree's docs/): ", out);
		roff(out, see);
		fputs(".\n.PP\n", out);
	}
	if (!top) {
		fputs(".BR hetlab (1)\n", out);
		return;
	}
	for (const struct cli_cmd *c = cli_commands; c->name; c++)
		fprintf(out, ".BR hetlab\\-%s (1)%s\n", c->name, c[1].name ? "," : "");
}

static void man_head(FILE *out, const char *page, const char *name, const char *summary)
{
	fprintf(out, ".\\\" Generated by `hetlab help --man`; edit cli/cmdtab.c instead.\n");
	fprintf(out, ".TH %s 1 \"\" \"hetlab %s\" \"hetlab manual\"\n.SH NAME\n", page, HETLAB_VERSION);
	roff(out, name);
	fputs(" \\- ", out);
	roff(out, summary);
	fputs("\n", out);
}

static void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

int cli_print_man(FILE *out, const char *path)
{
	if (!path || !*path) {
		man_head(out, "HETLAB", "hetlab", "discrete-event simulator and policy lab for heterogeneous clusters");
		fputs(".SH SYNOPSIS\n.B hetlab\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n.br\n"
		      ".B hetlab\n\\fB\\-h\\fR | \\fB\\-\\-help\\fR | \\fB\\-V\\fR | \\fB\\-\\-version\\fR\n", out);
		fputs(".SH DESCRIPTION\nhetlab replays real or synthetic job traces against a model of a "
		      "heterogeneous cluster (GPUs of several generations, MIG slices, many\\-core CPU nodes, "
		      "network planes, racks of different power and cooling) and runs the same scheduling "
		      "policy code that runs in live mode against this host or a Slurm cluster.\n.PP\n"
		      "Every command takes \\fB\\-\\-help\\fR (the same text as \\fBhetlab help\\fR "
		      "\\fICOMMAND\\fR), \\fB\\-\\-opt=\\fIvalue\\fR as well as \\fB\\-\\-opt \\fIvalue\\fR, "
		      "and \\fB\\-\\-\\fR to end the options.\n.SH COMMANDS\n", out);
		for (const struct cli_cmd *c = cli_commands; c->name; c++) {
			fprintf(out, ".TP\n.BR hetlab\\-%s (1)\n", c->name);
			roff(out, c->summary);
			fputs(".\n", out);
		}
		man_tail(out, "README.md, docs/", true);
		return 0;
	}
	const struct cli_cmd *c = cli_cmd_find(path);
	if (!c)
		return -1;
	char page[96], name[96];
	snprintf(name, sizeof name, "hetlab-%s", path);
	for (char *s = name; *s; s++)
		if (*s == ' ')
			*s = '-';
	snprintf(page, sizeof page, "%s", name);
	upper(page);
	man_head(out, page, name, c->summary);
	fputs(".SH SYNOPSIS\n", out);
	if (c->subs) {
		for (const struct cli_cmd *s = c->subs; s->name; s++) {
			char prog[96];
			snprintf(prog, sizeof prog, "%s %s", path, s->name);
			man_synopsis(out, prog, s);
		}
	} else {
		man_synopsis(out, path, c);
	}
	fputs(".SH DESCRIPTION\n", out);
	roff_desc(out, c->desc);
	if (c->subs) {
		fputs(".SH COMMANDS\n", out);
		for (const struct cli_cmd *s = c->subs; s->name; s++) {
			fprintf(out, ".SS \"hetlab %s %s", path, s->name);
			if (s->args) {
				fputc(' ', out);
				roff(out, s->args);
			}
			fputs("\"\n", out);
			roff_desc(out, s->desc);
			if (has_opts(s)) {
				fputs(".PP\nOptions:\n", out);
				man_opts(out, s);
			}
		}
	} else {
		fputs(".SH OPTIONS\n", out);
		man_opts(out, c);
	}
	man_tail(out, c->see, false);
	return 0;
}

/* ---- shell completion ---------------------------------------------------- */

static void policy_words(char *buf, size_t len)
{
	char names[512];
	policy_names(names, sizeof names);
	/* "fcfs, easy, ..." -> "fcfs easy ..." */
	size_t k = 0;
	for (const char *s = names; *s && k + 1 < len; s++)
		if (*s != ',')
			buf[k++] = *s;
	buf[k] = '\0';
}

/* The executors' names, space-separated (live/exec/registry.c). */
static void executor_words(char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (const struct live_executor *const *x = exec_all(); *x && k < len; x++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? " " : "", exec_name(*x));
}

static void command_words(FILE *out)
{
	for (const struct cli_cmd *c = cli_commands; c->name; c++)
		fprintf(out, "%s%s", c == cli_commands ? "" : " ", c->name);
}

static void bash_opts(FILE *out, const char *key, const struct cli_cmd *c)
{
	char pol[512], ex[256];
	policy_words(pol, sizeof pol);
	executor_words(ex, sizeof ex);
	fprintf(out, "\t\"%s\")\n\t\topts=\"", key);
	for (const struct cli_opt *o = c->opts; o && o->key; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		fprintf(out, "--%s%s ", o->lng, o->arg && !(o->flags & CLI_OPTARG) ? "=" : "");
		if (o->shrt)
			fprintf(out, "-%c ", o->shrt);
	}
	fprintf(out, "--help\"\n\t\tcase \"$prev\" in\n");
	for (const struct cli_opt *o = c->opts; o && o->key; o++) {
		if (!o->arg || (o->flags & CLI_OPTARG))
			continue;
		if (o->shrt)
			fprintf(out, "\t\t-%c|", o->shrt);
		else
			fputs("\t\t", out);
		fprintf(out, "--%s) ", o->lng);
		switch (o->comp) {
		case CLI_C_FILE: fputs("_hetlab_files; return ;;\n", out); break;
		case CLI_C_DIR: fputs("_hetlab_dirs; return ;;\n", out); break;
		case CLI_C_WORDS: fprintf(out, "_hetlab_words \"%s\"; return ;;\n", o->words); break;
		case CLI_C_POLICY: fprintf(out, "_hetlab_words \"%s\"; return ;;\n", pol); break;
		case CLI_C_EXECUTOR: fprintf(out, "_hetlab_words \"%s\"; return ;;\n", ex); break;
		default: fputs("COMPREPLY=(); return ;;\n", out); break;
		}
	}
	fprintf(out, "\t\tesac\n\t\tpos=%s ;;\n",
	        c->pos_comp == CLI_C_DIR ? "dir" : c->pos_comp == CLI_C_FILE ? "file" :
	        c->pos_comp == CLI_C_COMMAND ? "cmd" : "none");
}

static void print_bash(FILE *out)
{
	fputs("# bash completion for hetlab. Generated by `hetlab help --completion bash`\n"
	      "# from the command table (cli/cmdtab.c); do not edit.\n"
	      "_hetlab_words() { COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")); }\n"
	      "_hetlab_files() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); }\n"
	      "_hetlab_dirs() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); }\n"
	      "_hetlab()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal key=${COMP_WORDS[1]} first=2 opts=\"\" pos=none\n"
	      "\t# --opt=value: bash splits at '=' (COMP_WORDBREAKS)\n"
	      "\tif [ \"$cur\" = \"=\" ]; then cur=\"\"; prev=${COMP_WORDS[COMP_CWORD-1]};\n"
	      "\telif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 3 ]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\t_hetlab_words \"", out);
	command_words(out);
	fputs(" --help --version\"\n\t\treturn\n\tfi\n\tcase \"$key\" in\n", out);
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		if (!c->subs)
			continue;
		fprintf(out, "\t%s)\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\t_hetlab_words \"", c->name);
		for (const struct cli_cmd *s = c->subs; s->name; s++)
			fprintf(out, "%s ", s->name);
		fputs("--help\"\n\t\t\treturn\n\t\tfi\n\t\tkey=\"$key ${COMP_WORDS[2]}\"; first=3 ;;\n", out);
	}
	fputs("\tesac\n\tcase \"$key\" in\n", out);
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		if (c->subs) {
			for (const struct cli_cmd *s = c->subs; s->name; s++) {
				char key[96];
				snprintf(key, sizeof key, "%s %s", c->name, s->name);
				bash_opts(out, key, s);
			}
		} else {
			bash_opts(out, c->name, c);
		}
	}
	fputs("\t*) return ;;\n\tesac\n"
	      "\tcase \"$cur\" in\n"
	      "\t-*) compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\t    [ \"${#COMPREPLY[@]}\" -eq 1 ] && [ \"${COMPREPLY[0]%=}\" = \"${COMPREPLY[0]}\" ] && COMPREPLY[0]=\"${COMPREPLY[0]} \"\n"
	      "\t    return ;;\n\tesac\n"
	      "\tcase \"$pos\" in\n\tfile) _hetlab_files ;;\n\tdir) _hetlab_dirs ;;\n"
	      "\tcmd) _hetlab_words \"", out);
	command_words(out);
	fputs("\" ;;\n\tesac\n}\ncomplete -F _hetlab hetlab\n", out);
}

/* A zsh _arguments description: no brackets, colons or quotes. */
static void zsh_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		char ch = *s;
		if (ch == '[' || ch == '(')
			ch = '<';
		else if (ch == ']' || ch == ')')
			ch = '>';
		else if (ch == ':' || ch == '\'' || ch == '`' || ch == '"' || ch == '$' || ch == '\\')
			ch = ' ';
		fputc(ch, out);
	}
}

static void zsh_args(FILE *out, const struct cli_cmd *c, int shift)
{
	char pol[512], ex[256];
	policy_words(pol, sizeof pol);
	executor_words(ex, sizeof ex);
	fprintf(out, "\t\twords=(\"${(@)words[%d,-1]}\"); (( CURRENT -= %d ))\n", shift + 1, shift);
	fputs("\t\t_arguments -s -S \\\n", out);
	for (const struct cli_opt *o = c->opts; o && o->key; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		const char *rep = o->flags & CLI_REPEAT ? "*" : "";
		fputs("\t\t\t", out);
		if (o->shrt)
			fprintf(out, "'%s(-%c --%s)'{-%c,--%s%s}'[", rep, o->shrt, o->lng, o->shrt, o->lng,
			        o->arg ? (o->flags & CLI_OPTARG ? "=-" : "=") : "");
		else
			fprintf(out, "'%s--%s%s[", rep, o->lng, o->arg ? (o->flags & CLI_OPTARG ? "=-" : "=") : "");
		zsh_text(out, o->help);
		fputs("]", out);
		if (o->arg) {
			fputs(":", out);
			zsh_text(out, o->arg);
			switch (o->comp) {
			case CLI_C_FILE: fputs(":_files", out); break;
			case CLI_C_DIR: fputs(":_files -/", out); break;
			case CLI_C_WORDS: fprintf(out, ":(%s)", o->words); break;
			case CLI_C_POLICY: fprintf(out, ":(%s)", pol); break;
			case CLI_C_EXECUTOR: fprintf(out, ":(%s)", ex); break;
			default: fputs(": ", out); break;
			}
		}
		fputs("' \\\n", out);
	}
	fputs("\t\t\t'(- *)'{-h,--help}'[print the help and exit]'", out);
	if (c->args)
		fprintf(out, " \\\n\t\t\t'*:argument:%s'",
		        c->pos_comp == CLI_C_DIR ? "_files -/" : c->pos_comp == CLI_C_FILE ? "_files" : " ");
	fputs(" ;;\n", out);
}

static void print_zsh(FILE *out)
{
	fputs("#compdef hetlab\n# zsh completion for hetlab. Generated by `hetlab help --completion zsh`\n"
	      "# from the command table (cli/cmdtab.c); do not edit.\n"
	      "_hetlab() {\n\tif (( CURRENT == 2 )); then\n", out);
	fputs("\t\tlocal -a cmds; cmds=(\n", out);
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		fprintf(out, "\t\t\t'%s:", c->name);
		zsh_text(out, c->summary);
		fputs("'\n", out);
	}
	fputs("\t\t)\n\t\t_describe command cmds\n\t\treturn\n\tfi\n\tcase $words[2] in\n", out);
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		if (!c->subs) {
			fprintf(out, "\t%s)\n", c->name);
			zsh_args(out, c, 1);
			continue;
		}
		fprintf(out, "\t%s)\n\t\tif (( CURRENT == 3 )); then\n\t\t\tlocal -a subs; subs=(\n", c->name);
		for (const struct cli_cmd *s = c->subs; s->name; s++) {
			fprintf(out, "\t\t\t\t'%s:", s->name);
			zsh_text(out, s->summary);
			fputs("'\n", out);
		}
		fputs("\t\t\t)\n\t\t\t_describe command subs\n\t\t\treturn\n\t\tfi\n\t\tcase $words[3] in\n", out);
		for (const struct cli_cmd *s = c->subs; s->name; s++) {
			fprintf(out, "\t\t%s)\n", s->name);
			zsh_args(out, s, 2);
		}
		fputs("\t\tesac ;;\n", out);
	}
	fputs("\tesac\n}\n_hetlab \"$@\"\n", out);
}

int cli_print_completion(FILE *out, const char *shell)
{
	if (strcmp(shell, "bash") == 0)
		print_bash(out);
	else if (strcmp(shell, "zsh") == 0)
		print_zsh(out);
	else
		return -1;
	return 0;
}
