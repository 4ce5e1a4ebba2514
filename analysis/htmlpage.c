/* htmlpage — HTML page pieces shared by hetlab's reports (see htmlpage.h). */
#include "analysis/htmlpage.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void htmlpage_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static const char css[] =
	"body { font-family: sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }\n"
	"table { border-collapse: collapse; margin: 0.5em 0 1.2em; }\n"
	"th, td { padding: 0.3em 0.7em; border: 1px solid #ccc; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	"th { background: #f0f0f0; }\n"
	"tr.better td.verdict { background: #c6efce; color: #006100; }\n"
	"tr.worse td.verdict { background: #ffc7ce; color: #9c0006; }\n"
	"tr.same td.verdict { background: #eeeeee; }\n"
	"tr.na td.verdict { color: #888; }\n"
	".summary { font-size: 1.1em; background: #f6f8fa; border-left: 4px solid #888; padding: 0.6em 1em; }\n"
	"figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }\n"
	".warn { color: #9c5700; }\n"
	".note, figcaption { color: #555; }\n"
	"tr.answer td { background: #c6efce; font-weight: bold; }\n"
	"tr.fails td.verdict { color: #9c0006; }\n";

void htmlpage_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
	htmlpage_escape(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	htmlpage_escape(out, title);
	fputs("</h1>\n", out);
}

void htmlpage_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}

static bool at_attr(const char *p, const char *start, const char *name)
{
	size_t n = strlen(name);
	return p > start && (p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '\r') &&
	       strncmp(p, name, n) == 0;
}

/* Copies gnuplot's SVG document into the page (see the head comment). */
void htmlpage_svg(FILE *out, const char *svg, const char *prefix)
{
	const char *p = strstr(svg, "<svg");
	const char *start = p;
	if (!p)
		return;
	const char *tag_end = strchr(p, '>');
	while (*p) {
		if (p < tag_end && at_attr(p, start, "xmlns")) {
			/* xmlns="…" or xmlns:xlink="…": HTML knows both namespaces. */
			const char *q = strpbrk(p, "'\"");
			const char *e = q ? strchr(q + 1, *q) : NULL;
			if (e) {
				p = e + 1;
				continue;
			}
		}
		if (at_attr(p, start, "id='") || at_attr(p, start, "id=\"")) {
			fprintf(out, "%.4s%s-", p, prefix);
			p += 4;
			continue;
		}
		if (strncmp(p, "href='#", 7) == 0 || strncmp(p, "href=\"#", 7) == 0) {
			fprintf(out, "%.7s%s-", p, prefix);
			p += 7;
			continue;
		}
		if (strncmp(p, "url(#", 5) == 0) {
			fprintf(out, "url(#%s-", prefix);
			p += 5;
			continue;
		}
		fputc(*p++, out);
	}
}

char *htmlpage_read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 131072;
			char *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

int htmlpage_figure(FILE *out, const char *dir, const char *name, const char *caption)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s.svg", dir, name);
	char *svg = htmlpage_read_all(path);
	int ok = svg && strstr(svg, "<svg");
	fputs("<figure id=\"fig-", out);
	htmlpage_escape(out, name);
	fputs("\">\n", out);
	if (ok) {
		htmlpage_svg(out, svg, name);
		fputc('\n', out);
	} else {
		fputs("<p class=\"warn\">This figure could not be read.</p>\n", out);
	}
	free(svg);
	fputs("<figcaption>", out);
	htmlpage_escape(out, caption);
	fputs("</figcaption>\n</figure>\n", out);
	return ok ? 0 : -1;
}
