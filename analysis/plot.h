/* plot — figures drawn by gnuplot, for `hetlab trace inspect --plot` now
 * and for reports later.
 *
 * A figure NAME is three files in one folder: NAME.dat (the data, plain
 * text), NAME.gp (a gnuplot script that reads it) and, once plot_render has
 * run gnuplot on the script, NAME.png and NAME.svg. The scripts stay beside
 * the pictures so that a figure can be restyled and redrawn by hand
 * (`cd DIR && gnuplot NAME.gp`). gnuplot is an external program (Debian:
 * gnuplot-nox); it is run with an argument vector, never through a shell,
 * with DIR as its working directory.
 *
 * Ownership: every argument is borrowed; nothing is kept between calls.
 * Errors: 0 on success, -1 (or PLOT_NOPROG) with a message in err naming
 * the file or the program. */
#ifndef HL_PLOT_H
#define HL_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLOT_NOPROG (-2)        /* plot_render: the program is not on PATH */

struct plot_fig {
	const char *name;       /* file stem: letters, digits, '_', '-', '.' */
	const char *title;
	const char *xlabel, *ylabel;
	bool logx, logy;
	/* More gnuplot commands, run after the labels and before the plot
	 * command (ranges, tics, key placement); NULL for none. */
	const char *extra;
};

struct plot_series {
	const char *title;      /* legend entry; NULL: none */
	int64_t n;              /* points (plot_xy) */
	const double *x;        /* plot_xy only */
	const double *y;        /* plot_bars: one value per label */
	const double *err;      /* plot_xy: ± half-widths drawn as error bars; NULL none */
	const char *color;      /* plot_xy: "#rrggbb", its own colour; NULL: gnuplot's
	                           linetype cycle (8 colours, then they repeat) */
	const char *with;       /* plot_xy: its own style ("points pt 6 ps 2.5 lw 2"); NULL:
	                           the figure's */
	double err_lo, err_hi;  /* plot_xy with err: the bars are cut to [err_lo, err_hi]
	                           (a count or a share cannot go below 0); both 0: not cut */
};

/* Sixteen colours distinct from each other, for series that must never
 * share one (plot_series.color). */
extern const char *const plot_palette[16];

enum plot_style { PLOT_LINES, PLOT_STEPS, PLOT_POINTS };

/* Creates the folder when it does not exist (its parent must). */
int plot_mkdir(const char *dir, char *err, size_t errlen);
/* A bar chart: n categories named by labels, one bar per series in each
 * (clustered when there are several). */
int plot_bars(const char *dir, const struct plot_fig *f, int n, const char *const *labels,
              int ns, const struct plot_series *s, char *err, size_t errlen);
/* The same data as plot_bars, the series stacked on each other in each
 * category (series 0 at the bottom): shares of a total over time. */
int plot_stacked_bars(const char *dir, const struct plot_fig *f, int n,
                      const char *const *labels, int ns, const struct plot_series *s,
                      char *err, size_t errlen);
/* Curves y(x), one per series. PLOT_STEPS holds y[k] from x[k] to x[k+1]. */
int plot_xy(const char *dir, const struct plot_fig *f, enum plot_style style, int ns,
            const struct plot_series *s, char *err, size_t errlen);
/* Runs `prog` (NULL: "gnuplot") on DIR/NAME.gp for each of the n names, in
 * one process. 0 when it succeeds; PLOT_NOPROG when prog is not found (err
 * says how to install gnuplot); -1 when it cannot be run or fails. Its
 * messages go to stderr. */
int plot_render(const char *prog, const char *dir, int n, const char *const *names,
                char *err, size_t errlen);

#endif
