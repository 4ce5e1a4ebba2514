/* plot — gnuplot scripts, data files and the gnuplot runner (see plot.h). */
#include "analysis/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PLOT_W = 1000, PLOT_H = 600, PLOT_MAX_SCRIPTS = 64 };

/* Tableau's 10 and the light halves of its 20. */
const char *const plot_palette[16] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a",
	"#ff9896", "#c5b0d5", "#c49c94" };

static bool name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

int plot_mkdir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		snprintf(err, errlen, "%s: exists and is not a folder", dir);
		return -1;
	}
	if (mkdir(dir, 0777) != 0) {
		snprintf(err, errlen, "%s: cannot create the folder: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static FILE *open_in(const char *dir, const char *name, const char *ext, char *path,
                     size_t plen, char *err, size_t errlen)
{
	snprintf(path, plen, "%s/%s%s", dir, name, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return f;
}

static int close_checked(FILE *f, const char *path, char *err, size_t errlen)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}

/* A gnuplot single-quoted string: '' stands for a quote; control characters
 * become spaces so that the script stays one command per line. */
static void put_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	}
	fputc('\'', f);
}

/* The script's head: labels, scales, extra commands, and the loop over the
 * two outputs; plot_tail closes the loop. The plot command goes between. */
static void script_head(FILE *f, const struct plot_fig *fig)
{
	fprintf(f, "# %s — written by hetlab; redraw with: gnuplot %s.gp (in this folder)\n",
	        fig->name, fig->name);
	fputs("reset\nset encoding utf8\nset title ", f);
	put_str(f, fig->title);
	fputs("\nset xlabel ", f);
	put_str(f, fig->xlabel);
	fputs("\nset ylabel ", f);
	put_str(f, fig->ylabel);
	fputs("\nset grid ytics lc rgb '#d0d0d0'\nset key top right\n", f);
	if (fig->logx)
		fputs("set logscale x\n", f);
	if (fig->logy)
		fputs("set logscale y\n", f);
	if (fig->extra)
		fprintf(f, "%s\n", fig->extra);
	fprintf(f,
	        "do for [fmt in \"png svg\"] {\n"
	        "  if (fmt eq \"png\") {\n"
	        "    if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
	        "      set terminal pngcairo size %d,%d font \"DejaVu Sans,11\" noenhanced\n"
	        "    } else {\n"
	        "      set terminal png size %d,%d noenhanced\n"
	        "    }\n"
	        "  } else {\n"
	        "    set terminal svg size %d,%d dynamic font \"DejaVu Sans,11\" noenhanced\n"
	        "  }\n"
	        "  set output '%s.'.fmt\n",
	        PLOT_W, PLOT_H, PLOT_W, PLOT_H, PLOT_W, PLOT_H, fig->name);
}

static void script_tail(FILE *f)
{
	fputs("  unset output\n}\n", f);
}

static void put_title(FILE *f, const struct plot_series *s)
{
	if (s->title) {
		fputs(" title ", f);
		put_str(f, s->title);
	} else {
		fputs(" notitle", f);
	}
}

/* plot_bars and plot_stacked_bars: the same data file, clustered or
 * stacked histograms. */
static int bars_write(const char *dir, const struct plot_fig *fig, int n,
                      const char *const *labels, int ns, const struct plot_series *s,
                      bool stacked, char *err, size_t errlen)
{
	char path[4096];
	if (!name_ok(fig->name) || ns < 1) {
		snprintf(err, errlen, "plot: bad figure name '%s' or no series",
		         fig->name ? fig->name : "");
		return -1;
	}
	FILE *f = open_in(dir, fig->name, ".dat", path, sizeof path, err, errlen);
	if (!f)
		return -1;
	fprintf(f, "# %s: label", fig->name);
	for (int k = 0; k < ns; k++)
		fprintf(f, " | %s", s[k].title ? s[k].title : "value");
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		fputc('"', f);
		for (const char *p = labels[i]; *p; p++)
			fputc(*p == '"' || (unsigned char)*p < 0x20 ? '\'' : *p, f);
		fputc('"', f);
		for (int k = 0; k < ns; k++)
			fprintf(f, " %.10g", s[k].y[i]);
		fputc('\n', f);
	}
	if (close_checked(f, path, err, errlen) != 0)
		return -1;
	if (!(f = open_in(dir, fig->name, ".gp", path, sizeof path, err, errlen)))
		return -1;
	script_head(f, fig);
	fprintf(f, "  set style data histograms\n"
	        "  set style histogram %s\n"
	        "  set style fill solid 0.85 border -1\n"
	        "  set boxwidth 0.9\n"
	        "  set xtics nomirror\n", stacked ? "rowstacked" : "clustered gap 1");
	/* Many categories (days of a long run): every k-th label, turned. */
	int every = stacked && n > 24 ? (n + 23) / 24 : 1;
	if (stacked && n > 12)
		fputs("  set xtics rotate by -45\n", f);
	if (!fig->logy)
		fputs("  set yrange [0:*]\n", f);
	if (every > 1)
		fprintf(f, "  plot '%s.dat' using 2:xtic(int($0) %% %d == 0 ? strcol(1) : '')",
		        fig->name, every);
	else
		fprintf(f, "  plot '%s.dat' using 2:xtic(1)", fig->name);
	put_title(f, &s[0]);
	for (int k = 1; k < ns; k++) {
		fprintf(f, ", '' using %d", k + 2);
		put_title(f, &s[k]);
	}
	fputc('\n', f);
	script_tail(f);
	return close_checked(f, path, err, errlen);
}

int plot_bars(const char *dir, const struct plot_fig *fig, int n, const char *const *labels,
              int ns, const struct plot_series *s, char *err, size_t errlen)
{
	return bars_write(dir, fig, n, labels, ns, s, false, err, errlen);
}

int plot_stacked_bars(const char *dir, const struct plot_fig *fig, int n,
                      const char *const *labels, int ns, const struct plot_series *s,
                      char *err, size_t errlen)
{
	return bars_write(dir, fig, n, labels, ns, s, true, err, errlen);
}

int plot_xy(const char *dir, const struct plot_fig *fig, enum plot_style style, int ns,
            const struct plot_series *s, char *err, size_t errlen)
{
	static const char *const with[] = { "lines lw 2", "steps lw 2", "points pt 7 ps 0.6" };
	char path[4096];
	if (!name_ok(fig->name) || ns < 1) {
		snprintf(err, errlen, "plot: bad figure name '%s' or no series",
		         fig->name ? fig->name : "");
		return -1;
	}
	FILE *f = open_in(dir, fig->name, ".dat", path, sizeof path, err, errlen);
	if (!f)
		return -1;
	/* One block per series, separated by two blank lines (gnuplot's index). */
	for (int k = 0; k < ns; k++) {
		fprintf(f, "%s# series %d: %s\n", k ? "\n\n" : "", k, s[k].title ? s[k].title : "");
		for (int64_t i = 0; i < s[k].n; i++) {
			fprintf(f, "%.10g %.10g", s[k].x[i], s[k].y[i]);
			if (s[k].err && s[k].err_lo < s[k].err_hi)   /* the bar's ends, cut */
				fprintf(f, " %.10g %.10g", fmax(s[k].y[i] - s[k].err[i], s[k].err_lo),
				        fmin(s[k].y[i] + s[k].err[i], s[k].err_hi));
			else if (s[k].err)
				fprintf(f, " %.10g", s[k].err[i]);
			fputc('\n', f);
		}
	}
	if (close_checked(f, path, err, errlen) != 0)
		return -1;
	if (!(f = open_in(dir, fig->name, ".gp", path, sizeof path, err, errlen)))
		return -1;
	script_head(f, fig);
	fputs("  plot", f);
	for (int k = 0; k < ns; k++) {
		if (s[k].err)
			fprintf(f, "%s '%s.dat' index %d using 1:2:3%s with yerrorlines lw 2 pt 7", k ? "," : "",
			        fig->name, k, s[k].err_lo < s[k].err_hi ? ":4" : "");
		else
			fprintf(f, "%s '%s.dat' index %d using 1:2 with %s", k ? "," : "", fig->name, k,
			        s[k].with ? s[k].with : with[style]);
		if (s[k].color)
			fprintf(f, " lc rgb '%s'", s[k].color);
		put_title(f, &s[k]);
	}
	fputc('\n', f);
	script_tail(f);
	return close_checked(f, path, err, errlen);
}

int plot_render(const char *prog, const char *dir, int n, const char *const *names,
                char *err, size_t errlen)
{
	if (!prog)
		prog = "gnuplot";
	if (n < 1 || n > PLOT_MAX_SCRIPTS) {
		snprintf(err, errlen, "plot: %d scripts (1 to %d)", n, PLOT_MAX_SCRIPTS);
		return -1;
	}
	char files[PLOT_MAX_SCRIPTS][256];
	char *argv[PLOT_MAX_SCRIPTS + 2];
	argv[0] = (char *)prog; /* execvp's argv is char *const[]; nothing writes to it */
	for (int i = 0; i < n; i++) {
		if (!name_ok(names[i]) || strlen(names[i]) > 200) {
			snprintf(err, errlen, "plot: bad figure name '%s'", names[i]);
			return -1;
		}
		snprintf(files[i], sizeof files[i], "%s.gp", names[i]);
		argv[i + 1] = files[i];
	}
	argv[n + 1] = NULL;
	/* The child reports a failed chdir or exec through a close-on-exec pipe. */
	int fd[2];
	if (pipe2(fd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "plot: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "plot: fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int what = 0, e = 0;
		if (chdir(dir) != 0) {
			what = 1;
		} else {
			dup2(STDERR_FILENO, STDOUT_FILENO); /* keep our stdout for our output */
			execvp(prog, argv);
			what = 2;
		}
		e = errno;
		int msg[2] = { what, e };
		ssize_t wr = write(fd[1], msg, sizeof msg);
		(void)wr;
		_exit(127);
	}
	close(fd[1]);
	int msg[2];
	ssize_t got;
	do
		got = read(fd[0], msg, sizeof msg);
	while (got < 0 && errno == EINTR);
	close(fd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof msg) {
		if (msg[0] == 2 && (msg[1] == ENOENT || msg[1] == ENOTDIR)) {
			snprintf(err, errlen, "%s not found on PATH: install gnuplot (Debian: apt-get "
			         "install gnuplot-nox; scripts/deps.sh does it) to draw the figures; the "
			         "data files and scripts are in %s", prog, dir);
			return PLOT_NOPROG;
		}
		snprintf(err, errlen, "plot: cannot %s %s: %s", msg[0] == 1 ? "enter" : "run",
		         msg[0] == 1 ? dir : prog, strerror(msg[1]));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "%s failed (%s %d) on the scripts in %s; its messages are above",
		         prog, WIFEXITED(status) ? "exit status" : "signal",
		         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir);
		return -1;
	}
	return 0;
}
