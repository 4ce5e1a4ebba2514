/* htmlpage — the pieces of hetlab's self-contained HTML pages: escaping,
 * the page head with its one inline style sheet (the verdict colours of
 * `hetlab compare`, tables, figures), and gnuplot's SVG figures inlined
 * with their ids prefixed so that two figures of a page never clash. No
 * script, no external resource. Used by compare_out.c (hetlab compare
 * --format html), report_doc.c (hetlab report --format html of a run) and
 * sumreport_html.c (of a sweep or a plan).
 *
 * Ownership: every argument is borrowed; htmlpage_read_all's result is the
 * caller's to free. */
#ifndef HL_HTMLPAGE_H
#define HL_HTMLPAGE_H

#include <stdio.h>

/* s with <, >, & and " escaped. */
void htmlpage_escape(FILE *out, const char *s);
/* <!DOCTYPE html> ... <body><h1>TITLE</h1> (title escaped). */
void htmlpage_head(FILE *out, const char *title);
void htmlpage_end(FILE *out);
/* gnuplot's SVG document (from "<svg" on) with its ids, fragment links and
 * url(#...) references prefixed with "PREFIX-" and its xmlns attributes
 * dropped (HTML knows both namespaces). */
void htmlpage_svg(FILE *out, const char *svg, const char *prefix);
/* A <figure> of DIR/NAME.svg and its caption (escaped). 0, or -1 when the
 * file cannot be read (a note in its place). */
int htmlpage_figure(FILE *out, const char *dir, const char *name, const char *caption);
/* The whole file as a string, or NULL. */
char *htmlpage_read_all(const char *path);

#endif
