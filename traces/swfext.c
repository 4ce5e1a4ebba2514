/* swfext — memory-unit notes, field 21 and the replay notes of extended
 * SWF logs; see swfext.h and docs/traces.md "Extended SWF". */
#include "traces/swfext.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- the header's memory unit --------------------------------------------- */

/* Words are runs of letters and digits, compared without case. */
struct word {
	const char *s;
	size_t n;
};

static int split_words(const char *t, struct word *w, int max)
{
	int n = 0;
	while (*t && n < max) {
		while (*t && !isalnum((unsigned char)*t))
			t++;
		if (!*t)
			break;
		w[n].s = t;
		while (isalnum((unsigned char)*t))
			t++;
		w[n].n = (size_t)(t - w[n].s);
		n++;
	}
	return n;
}

/* 1 when w is one of the NULL-terminated words of list. */
static int word_in(const struct word *w, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == w->n && strncasecmp(w->s, *list, w->n) == 0)
			return 1;
	return 0;
}

static const char *const w_memory[] = { "memory", "ram", NULL };
static const char *const w_scale[][7] = {
	[SWF_MEM_KB] = { "kb", "kbytes", "kilobytes", "kilobyte", "kib", NULL },
	[SWF_MEM_BYTES] = { "bytes", "byte", NULL },
	[SWF_MEM_MB] = { "mb", "mbytes", "megabytes", "megabyte", "mib", NULL },
	[SWF_MEM_GB] = { "gb", "gbytes", "gigabytes", "gigabyte", "gib", NULL },
};
static const char *const w_per[][9] = {
	[SWF_MEM_PER_PROC] = { "processor", "processors", "proc", "procs", "cpu", "cpus", "core",
	                       "cores", NULL },
	[SWF_MEM_PER_NODE] = { "node", "nodes", "host", "machine", NULL },
	[SWF_MEM_PER_JOB] = { "job", "jobs", NULL },
};
static const char *const w_req[] = { "requested", "request", "req", NULL };
static const char *const w_used[] = { "used", "usage", NULL };
static const char *const w_in[] = { "in", NULL };
static const char *const w_perw[] = { "per", NULL };

int swfext_mem_note(const char *text, struct swf_mem_unit *u, bool *req, bool *used)
{
	struct word w[64];
	int n = split_words(text, w, 64), m = 0;
	while (m < n && !word_in(&w[m], w_memory))
		m++;
	if (m == n)
		return 0;
	int scale = -1, per = SWF_MEM_PER_PROC;
	for (int i = m + 1; i + 1 < n && scale < 0; i++)
		for (int s = 0; s < 4 && word_in(&w[i], w_in); s++)
			if (word_in(&w[i + 1], w_scale[s]))
				scale = s;
	if (scale < 0)
		return 0;
	for (int i = m + 1; i + 1 < n; i++)
		if (word_in(&w[i], w_perw)) {
			int p = 0;
			while (p < 3 && !word_in(&w[i + 1], w_per[p]))
				p++;
			if (p < 3) {
				per = p;
				break;
			}
		}
	bool r = false, x = false;
	for (int i = 0; i < n; i++) {
		r = r || word_in(&w[i], w_req);
		x = x || word_in(&w[i], w_used);
	}
	*req = r || !x;
	*used = x || !r;
	u->scale = (int8_t)scale;
	u->per = (int8_t)per;
	return 1;
}

int swfext_mem_unit_parse(const char *s, struct swf_mem_unit *u)
{
	static const char *const scale[] = { "KB", "bytes", "MB", "GB" };
	static const char *const per[] = { "proc", "node", "job" };
	const char *slash = strchr(s, '/');
	if (!slash)
		return -1;
	int a = 0, b = 0;
	while (a < 4 && (strlen(scale[a]) != (size_t)(slash - s) ||
	                 strncasecmp(s, scale[a], (size_t)(slash - s)) != 0))
		a++;
	while (b < 3 && strcasecmp(slash + 1, per[b]) != 0)
		b++;
	if (a == 4 || b == 3)
		return -1;
	*u = (struct swf_mem_unit){ .scale = (int8_t)a, .per = (int8_t)b };
	return 0;
}

const char *swfext_mem_unit_name(const struct swf_mem_unit *u, char *buf, size_t len)
{
	static const char *const scale[] = { "KB", "bytes", "MB", "GB" };
	static const char *const per[] = { "processor", "node", "job" };
	snprintf(buf, len, "%s per %s", scale[u->scale], per[u->per]);
	return buf;
}

/* ---- field 21: the site's request ------------------------------------------ */

static int fail(char *msg, size_t len, const char *what, const char *want, const char *s,
                const char *e)
{
	int n = (int)(e - s > 40 ? 40 : e - s);
	snprintf(msg, len, "%s: expected %s, got '%.*s%s'", what, want, n, s, e - s > 40 ? "..." : "");
	return -1;
}

/* A non-negative integer [s, e); -1 when it is not one or overflows. */
static int64_t uint_of(const char *s, const char *e)
{
	if (s == e)
		return -1;
	int64_t v = 0;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* PBS time: S, M:S, H:M:S or D:H:M:S, each part an integer. */
static int time_of(const char *s, const char *e, int64_t *out)
{
	static const int64_t mult[] = { 1, 60, 3600, 86400 };
	int64_t part[4];
	int n = 0;
	for (const char *p = s;; ) {
		const char *q = p;
		while (q < e && *q != ':')
			q++;
		if (n == 4 || (part[n++] = uint_of(p, q)) < 0 || part[n - 1] > TRACE_MAX_TIME_S)
			return -1;
		if (q == e)
			break;
		p = q + 1;
	}
	int64_t v = 0;
	for (int k = 0; k < n; k++)
		v += part[k] * mult[n - 1 - k];
	if (v > TRACE_MAX_TIME_S)
		return -1;
	*out = v;
	return 0;
}

/* PBS size: an integer and an optional unit b, kb, mb, gb, tb (or k, m,
 * g, t; any case); no unit is bytes, as in PBS. */
static int size_of(const char *s, const char *e, int64_t *out)
{
	const char *d = s;
	while (d < e && *d >= '0' && *d <= '9')
		d++;
	int64_t v = uint_of(s, d);
	if (v < 0)
		return -1;
	size_t n = (size_t)(e - d);
	int shift = -1;
	char u = n ? (char)tolower((unsigned char)*d) : 'b';
	if (n == 0 || (n == 1 && u == 'b'))
		shift = 0;
	else if ((n == 1 || (n == 2 && tolower((unsigned char)d[1]) == 'b')) && strchr("kmgt", u))
		shift = u == 'k' ? 10 : u == 'm' ? 20 : u == 'g' ? 30 : 40;
	if (shift < 0 || v > (INT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static int prefix(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - s) >= n && strncasecmp(s, lit, n) == 0;
}

/* One node specification [s, e): parts joined by '+', each
 * "COUNT|HOST[:ppn=P|:ncpus=P|:mem=SIZE|:property]...", then "#excl" or
 * other '#' flags. Adds to r. */
static int nodespec(const char *s, const char *e, struct swf_sitereq *r, char *msg, size_t len)
{
	const char *hash = memchr(s, '#', (size_t)(e - s));
	for (const char *f = hash; f && f < e; ) {
		const char *g = memchr(f + 1, '#', (size_t)(e - f - 1));
		if (!g)
			g = e;
		if (g - f - 1 == 4 && strncasecmp(f + 1, "excl", 4) == 0)
			r->excl = true;
		f = g < e ? g : NULL;
	}
	if (hash)
		e = hash;
	int parts = 0;
	int64_t mem_total = 0;
	bool any_mem = false;
	for (const char *p = s; p <= e; parts++) {
		const char *q = memchr(p, '+', (size_t)(e - p));
		if (!q)
			q = e;
		int64_t count = 1, ppn = 1, mem = -1;
		if (p == q)
			return fail(msg, len, "nodes", "a node specification such as 2:ppn=8", s, e);
		for (const char *a = p, *k = 0; a <= q; a = k + 1) {
			k = memchr(a, ':', (size_t)(q - a));
			if (!k)
				k = q;
			if (a == p && a < k && *a >= '0' && *a <= '9') {
				if ((count = uint_of(a, k)) <= 0)
					return fail(msg, len, "nodes", "a node count of at least 1", a, k);
			} else if (prefix(a, k, "ppn=") || prefix(a, k, "ncpus=")) {
				const char *v = (const char *)memchr(a, '=', (size_t)(k - a)) + 1;
				if ((ppn = uint_of(v, k)) <= 0 || ppn > INT32_MAX)
					return fail(msg, len, "ppn", "a positive integer", v, k);
			} else if (prefix(a, k, "mem=")) {
				if (size_of(a + 4, k, &mem) < 0)
					return fail(msg, len, "mem", "a size such as 4gb, 512mb or 1024kb", a + 4, k);
			}
			if (k == q)
				break;
		}
		if (r->nodes > INT32_MAX - count || count > INT32_MAX / ppn ||
		    r->procs > INT32_MAX - count * ppn)
			return fail(msg, len, "nodes", "fewer than 2^31 nodes and processors", s, e);
		r->nodes += count;
		r->procs += count * ppn;
		r->ppn = parts == 0 ? (int32_t)ppn : 0;
		if (mem >= 0) {
			any_mem = true;
			mem_total = mem > (INT64_MAX - mem_total) / count ? INT64_MAX : mem_total + mem * count;
			if (parts == 0)
				r->mem_b = mem;
		}
		if (q == e)
			break;
		p = q + 1;
	}
	if (any_mem) {
		r->mem_per_node = parts == 0;
		if (parts > 0)
			r->mem_b = mem_total;
	}
	return 0;
}

int swfext_sitereq(const char *s, const char *e, struct swf_sitereq *r, char *msg, size_t msglen)
{
	*r = (struct swf_sitereq){ .walltime_s = -1, .mem_b = -1 };
	if (e - s == 2 && s[0] == '-' && s[1] == '1')
		return 0;
	int64_t ncpus = 0;
	for (const char *a = s, *k; a < e; a = k + 1) {
		k = memchr(a, ',', (size_t)(e - a));
		if (!k)
			k = e;
		const char *eq = memchr(a, '=', (size_t)(k - a));
		const char *colon = memchr(a, ':', (size_t)(k - a));
		int rc = 0;
		if (prefix(a, k, "nodes="))
			rc = nodespec(a + 6, k, r, msg, msglen);
		else if (prefix(a, k, "select="))
			rc = nodespec(a + 7, k, r, msg, msglen);
		else if (!eq || (colon && colon < eq))   /* a bare "N:ppn=P..." first, else a flag */
			rc = a == s && *a >= '0' && *a <= '9' ? nodespec(a, k, r, msg, msglen) : 0;
		else if (prefix(a, k, "walltime=")) {
			if (time_of(eq + 1, k, &r->walltime_s) < 0)
				rc = fail(msg, msglen, "walltime", "[[[D:]H:]M:]S of at most 10^9 s", eq + 1, k);
		} else if (prefix(a, k, "mem=")) {
			if (size_of(eq + 1, k, &r->mem_b) < 0)
				rc = fail(msg, msglen, "mem", "a size such as 4gb, 512mb or 1024kb", eq + 1, k);
			r->mem_per_node = false;
		} else if (prefix(a, k, "ncpus=") || prefix(a, k, "procs=")) {
			if ((ncpus = uint_of(eq + 1, k)) <= 0 || ncpus > INT32_MAX)
				rc = fail(msg, msglen, "ncpus", "a positive integer", eq + 1, k);
		}
		if (rc < 0)
			return -1;
		if (k == e)
			break;
	}
	if (r->procs == 0)
		r->procs = ncpus;
	return 0;
}

/* ---- notes ----------------------------------------------------------------- */

void swfext_notes(const struct workload *w, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
#define ADD(...) (off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
	if (w->rebased_from > 0) {
		time_t t = (time_t)w->rebased_from;
		struct tm tm;
		char when[32] = "?";
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
		ADD("submit times are Unix times (the first job's is 10^8 s or more): rebased to the "
		    "first submit, %lld (%s), which is the UnixStartTime", (long long)w->rebased_from,
		    when);
		if (w->header_unix_start > 0 && w->header_unix_start != w->rebased_from)
			ADD(" (the header said %lld)", (long long)w->header_unix_start);
	}
	const struct swf_mem_unit *u[2] = { &w->mem_req_unit, &w->mem_used_unit };
	static const char *const field[2] = { "requested memory (field 10)", "used memory (field 7)" };
	for (int k = 0; k < 2; k++) {
		if (!u[k]->line)
			continue;
		char b[48], where[48] = "the scenario's workload.swf.memory_unit";
		if (u[k]->line > 0)
			snprintf(where, sizeof where, "header line %lld", (long long)u[k]->line);
		ADD("%s%s in %s (%s)", off ? "\n" : "", field[k],
		    swfext_mem_unit_name(u[k], b, sizeof b), where);
	}
	if (w->site_req_lines) {
		static const char *const what[] = { "processors", "the requested time", "memory",
		                                    "the gang shape" };
		ADD("%sfield 21 (the site's request) read on %lld job lines; it gave", off ? "\n" : "",
		    (long long)w->site_req_lines);
		int k, any = 0;
		for (k = 0; k < 4; k++)
			if (w->site_req_used[k])
				ADD("%s %s to %lld job%s", any++ ? "," : "", what[k],
				    (long long)w->site_req_used[k], w->site_req_used[k] == 1 ? "" : "s");
		if (!any)
			ADD(" nothing the standard fields lacked");
	}
#undef ADD
}
