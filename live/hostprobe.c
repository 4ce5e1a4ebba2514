/* hostprobe — see hostprobe.h. Paths are built into fixed buffers, files
 * are read into fixed buffers and directories are listed into fixed tables,
 * so a probe allocates nothing but what opendir/fopen do internally. */
#include "live/hostprobe.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

enum { PATH_LEN = 1024, TEXT_LEN = 4096, LINE_LEN = 512 };

static const char *const nic_counter_names[HP_NIC_NCOUNTERS] = {
	"rx_errors", "tx_errors", "rx_dropped", "tx_dropped", "rx_packets", "tx_packets",
};
static const char *const ib_counter_names[HP_IB_NCOUNTERS] = {
	"symbol_error", "port_rcv_errors", "link_downed",
};

const char *hp_nic_counter_name(enum hp_nic_counter c)
{
	return (unsigned)c < HP_NIC_NCOUNTERS ? nic_counter_names[c] : "?";
}

const char *hp_ib_counter_name(enum hp_ib_counter c)
{
	return (unsigned)c < HP_IB_NCOUNTERS ? ib_counter_names[c] : "?";
}

/* ---- messages ----------------------------------------------------------- */

void hp_msgs_init(struct hp_msgs *m)
{
	memset(m, 0, sizeof *m);
}

void hp_msg(struct hp_msgs *m, bool problem, const char *fmt, ...)
{
	if (problem)
		m->nproblems++;
	if (m->n >= HP_MAX_MSGS) {
		m->dropped++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->text[m->n], HP_MSG, fmt, ap);
	va_end(ap);
	m->problem[m->n++] = problem;
}

/* ---- paths, files, directories ------------------------------------------ */

/* ROOT + "/" + formatted rest, without doubling the slash after "/".
 * -1 when it does not fit. */
static int mkpath(char *buf, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mkpath(char *buf, const char *root, const char *fmt, ...)
{
	size_t rl = strlen(root);
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (rl >= PATH_LEN)
		return -1;
	memcpy(buf, root, rl);
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + rl, PATH_LEN - rl, fmt, ap);
	va_end(ap);
	return k < 0 || (size_t)k >= PATH_LEN - rl ? -1 : 0;
}

/* Reads a small file whole into buf (NUL-terminated). 0 ok; 1 absent (no
 * such file, or not readable by us: a note); -1 error or too large (a
 * problem). */
static int read_text(const char *path, char *buf, size_t n, struct hp_msgs *m)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		if (errno == EACCES || errno == EPERM) {
			hp_msg(m, false, "%s: not readable (%s)", path, strerror(errno));
			return 1;
		}
		hp_msg(m, true, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t len = fread(buf, 1, n - 1, f);
	int rc = 0;
	if (ferror(f)) {
		hp_msg(m, true, "%s: read error", path);
		rc = -1;
	} else if (len == n - 1 && fgetc(f) != EOF) {
		hp_msg(m, true, "%s: longer than %zu bytes", path, n - 1);
		rc = -1;
	}
	fclose(f);
	buf[rc == 0 ? len : 0] = '\0';
	return rc;
}

/* Printable ASCII only, trailing whitespace dropped: names end up in JSON
 * and on terminals. */
static void clean_str(char *s)
{
	size_t len = strlen(s);
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		s[--len] = '\0';
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
}

/* A one-line text file into out (truncated to n, cleaned). 0 ok, 1 absent, -1 error. */
static int read_str(const char *path, char *out, size_t n, struct hp_msgs *m)
{
	char text[TEXT_LEN];
	int rc = read_text(path, text, sizeof text, m);
	out[0] = '\0';
	if (rc != 0)
		return rc;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	snprintf(out, n, "%s", text);
	clean_str(out);
	return 0;
}

int hp_parse_u64(const char *s, uint64_t *out, const char **why)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '\0') {
		*why = "empty";
		return -1;
	}
	if (*s == '-') {
		*why = "negative";
		return -1;
	}
	if (*s == '+')
		s++;
	uint64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*why = "overflow";
			return -1;
		}
		v = v * 10 + d;
	}
	if (p == s) {
		*why = "not a number";
		return -1;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != '\0') {
		*why = "not a number";
		return -1;
	}
	*out = v;
	return 0;
}

static void read_val(const char *path, struct hp_val *out, struct hp_msgs *m)
{
	char text[TEXT_LEN];
	const char *why;
	out->st = HP_ABSENT;
	out->v = 0;
	int rc = read_text(path, text, sizeof text, m);
	if (rc > 0)
		return;
	if (rc < 0) {
		out->st = HP_INVALID;
		return;
	}
	if (hp_parse_u64(text, &out->v, &why) != 0) {
		char shown[40];
		snprintf(shown, sizeof shown, "%s", text);
		clean_str(shown);
		hp_msg(m, true, "%s: %s (\"%s\")", path, why, shown);
		out->st = HP_INVALID;
		out->v = 0;
		return;
	}
	out->st = HP_OK;
}

/* A directory's entry names, filtered by prefix and suffix (and to
 * directories when dirs_only), in natural order. Absent directory: 0. */
struct dirlist {
	int n;
	char name[HP_MAX_DIR][HP_NAME];
};

static int by_version(const void *a, const void *b)
{
	return strverscmp((const char *)a, (const char *)b);
}

static void list_dir(const char *path, const char *prefix, const char *suffix, bool dirs_only,
                     struct dirlist *out, struct hp_msgs *m)
{
	out->n = 0;
	DIR *d = opendir(path);
	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR)
			hp_msg(m, errno != EACCES, "%s: %s", path, strerror(errno));
		return;
	}
	size_t pl = strlen(prefix), sl = strlen(suffix);
	int over = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *nm = e->d_name;
		size_t len = strlen(nm);
		if (nm[0] == '.' || len < pl + sl || strncmp(nm, prefix, pl) != 0 ||
		    strcmp(nm + len - sl, suffix) != 0)
			continue;
		if (len >= HP_NAME) {
			hp_msg(m, false, "%s/%s: name too long, skipped", path, nm);
			continue;
		}
		if (dirs_only) {
			char full[PATH_LEN];
			struct stat st;
			if (mkpath(full, path, "/%s", nm) != 0 || stat(full, &st) != 0 || !S_ISDIR(st.st_mode))
				continue;
		}
		if (out->n >= HP_MAX_DIR) {
			over++;
			continue;
		}
		memcpy(out->name[out->n++], nm, len + 1);
	}
	closedir(d);
	if (over)
		hp_msg(m, false, "%s: %d entries beyond the first %d ignored", path, over, HP_MAX_DIR);
	qsort(out->name, (size_t)out->n, sizeof out->name[0], by_version);
}

/* ---- CPU and memory ------------------------------------------------------- */

/* Reads the next line into buf; a line longer than the buffer is consumed
 * whole and flagged. false at end of file. */
static bool next_line(FILE *f, char *buf, size_t n, bool *too_long)
{
	if (!fgets(buf, (int)n, f))
		return false;
	*too_long = false;
	size_t len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n') {
		buf[len - 1] = '\0';
		return true;
	}
	int c;
	while ((c = fgetc(f)) != EOF && c != '\n')
		*too_long = true;
	return true;
}

/* Opens ROOT/rel; NULL with out-state set when absent or failing. */
static FILE *open_rel(const char *root, const char *rel, char *path, enum hp_state *st, struct hp_msgs *m)
{
	if (mkpath(path, root, "%s", rel) != 0) {
		hp_msg(m, true, "%s%s: path too long", root, rel);
		*st = HP_INVALID;
		return NULL;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*st = HP_ABSENT;
		} else {
			hp_msg(m, errno != EACCES, "%s: %s", path, strerror(errno));
			*st = errno == EACCES ? HP_ABSENT : HP_INVALID;
		}
	}
	return f;
}

/* The aggregate line's fields after "cpu". */
static int parse_cpu_line(char *s, struct hp_cpustat *out, const char **why)
{
	uint64_t f[8] = { 0 };
	int nf = 0;
	char *save = NULL;
	for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		uint64_t v;
		if (hp_parse_u64(tok, &v, why) != 0)
			return -1;
		if (nf < 8)
			f[nf] = v;
		nf++;
	}
	if (nf < 4) {
		*why = "fewer than 4 fields";
		return -1;
	}
	uint64_t total = 0;
	for (int i = 0; i < 8; i++)
		if (__builtin_add_overflow(total, f[i], &total)) {
			*why = "overflow";
			return -1;
		}
	out->total = total;
	out->idle = f[3];
	out->iowait = f[4];
	return 0;
}

void hp_read_cpustat(const char *root, struct hp_cpustat *out, struct hp_msgs *m)
{
	char path[PATH_LEN], line[LINE_LEN];
	memset(out, 0, sizeof *out);
	FILE *f = open_rel(root, "/proc/stat", path, &out->st, m);
	if (!f)
		return;
	bool seen = false, bad = false, too_long;
	int lineno = 0;
	while (!bad && next_line(f, line, sizeof line, &too_long)) {
		lineno++;
		if (strncmp(line, "cpu", 3) != 0)
			continue;
		const char *why = NULL;
		if (too_long) {
			why = "line too long";
		} else if (line[3] == ' ' || line[3] == '\t') {
			if (seen)
				why = "second aggregate cpu line";
			else if (parse_cpu_line(line + 3, out, &why) == 0)
				seen = true;
		} else if (line[3] >= '0' && line[3] <= '9') {
			out->ncores++;
		}
		if (why) {
			hp_msg(m, true, "%s:%d: cpu line: %s", path, lineno, why);
			bad = true;
		}
	}
	fclose(f);
	if (!bad && !seen) {
		hp_msg(m, true, "%s: no aggregate \"cpu\" line", path);
		bad = true;
	}
	if (!bad && out->idle + out->iowait > out->total) {   /* cannot overflow: both are parts of total */
		hp_msg(m, true, "%s: idle + iowait exceed the total", path);
		bad = true;
	}
	if (bad) {
		int nc = out->ncores;
		memset(out, 0, sizeof *out);
		out->ncores = nc;
		out->st = HP_INVALID;
		return;
	}
	out->st = HP_OK;
}

double hp_cpu_util(const struct hp_cpustat *a, const struct hp_cpustat *b)
{
	if (a->st != HP_OK || b->st != HP_OK || b->total <= a->total ||
	    b->idle < a->idle || b->iowait < a->iowait)
		return -1;
	uint64_t busy_a = a->total - a->idle - a->iowait;
	uint64_t busy_b = b->total - b->idle - b->iowait;
	if (busy_b < busy_a)
		return -1;
	double u = (double)(busy_b - busy_a) / (double)(b->total - a->total);
	return u > 1 ? 1 : u;
}

void hp_read_mem(const char *root, struct hp_mem *out, struct hp_msgs *m)
{
	char path[PATH_LEN], line[LINE_LEN];
	enum hp_state st;
	memset(out, 0, sizeof *out);
	FILE *f = open_rel(root, "/proc/meminfo", path, &st, m);
	if (!f) {
		out->total_kib.st = out->avail_kib.st = st;
		return;
	}
	bool too_long;
	int lineno = 0;
	while (next_line(f, line, sizeof line, &too_long)) {
		lineno++;
		struct hp_val *v = NULL;
		const char *key = NULL;
		if (strncmp(line, "MemTotal:", 9) == 0)
			v = &out->total_kib, key = "MemTotal";
		else if (strncmp(line, "MemAvailable:", 13) == 0)
			v = &out->avail_kib, key = "MemAvailable";
		if (!v || v->st != HP_ABSENT)
			continue;
		char *val = strchr(line, ':') + 1;
		size_t len = strlen(val);
		if (len >= 3 && strcmp(val + len - 3, " kB") == 0)
			val[len - 3] = '\0';
		const char *why;
		if (too_long) {
			hp_msg(m, true, "%s:%d: %s: line too long", path, lineno, key);
			v->st = HP_INVALID;
		} else if (hp_parse_u64(val, &v->v, &why) != 0) {
			hp_msg(m, true, "%s:%d: %s: %s", path, lineno, key, why);
			v->st = HP_INVALID;
			v->v = 0;
		} else {
			v->st = HP_OK;
		}
	}
	fclose(f);
}

/* ---- RAPL ------------------------------------------------------------------ */

void hp_read_rapl(const char *root, struct hp_rapl *out, struct hp_msgs *m)
{
	char path[PATH_LEN];
	struct dirlist dl;
	memset(out, 0, sizeof *out);
	if (mkpath(path, root, "/sys/class/powercap") != 0)
		return;
	list_dir(path, "intel-rapl:", "", true, &dl, m);
	for (int i = 0; i < dl.n; i++) {
		if (out->n >= HP_MAX_RAPL) {
			hp_msg(m, false, "%s: RAPL zones beyond the first %d ignored", path, HP_MAX_RAPL);
			break;
		}
		struct hp_rapl_zone *z = &out->z[out->n++];
		char file[PATH_LEN];
		snprintf(z->dir, sizeof z->dir, "%s", dl.name[i]);
		if (mkpath(file, path, "/%s/name", z->dir) == 0)
			read_str(file, z->name, sizeof z->name, m);
		if (mkpath(file, path, "/%s/energy_uj", z->dir) == 0)
			read_val(file, &z->energy_uj, m);
		if (mkpath(file, path, "/%s/max_energy_range_uj", z->dir) == 0)
			read_val(file, &z->max_range_uj, m);
	}
}

double hp_rapl_power_w(const struct hp_rapl_zone *a, const struct hp_rapl_zone *b, int64_t dt_us)
{
	if (dt_us <= 0 || a->energy_uj.st != HP_OK || b->energy_uj.st != HP_OK)
		return -1;
	uint64_t ea = a->energy_uj.v, eb = b->energy_uj.v, d;
	if (eb >= ea) {
		d = eb - ea;
	} else {
		if (b->max_range_uj.st != HP_OK)
			return -1;
		uint64_t max = b->max_range_uj.v;
		if (ea > max || max == UINT64_MAX)
			return -1;
		d = max - ea + eb + 1;   /* eb < ea <= max, so no overflow */
	}
	return (double)d / (double)dt_us;
}

/* ---- hwmon temperatures --------------------------------------------------- */

void hp_read_temps(const char *root, struct hp_temps *out, struct hp_msgs *m)
{
	char base[PATH_LEN], dir[PATH_LEN], file[PATH_LEN], chip[HP_NAME];
	struct dirlist mons, files;
	memset(out, 0, sizeof *out);
	if (mkpath(base, root, "/sys/class/hwmon") != 0)
		return;
	list_dir(base, "hwmon", "", true, &mons, m);
	for (int i = 0; i < mons.n; i++) {
		if (mkpath(dir, base, "/%s", mons.name[i]) != 0)
			continue;
		chip[0] = '\0';
		if (mkpath(file, dir, "/name") == 0)
			read_str(file, chip, sizeof chip, m);
		list_dir(dir, "temp", "_input", false, &files, m);
		for (int j = 0; j < files.n; j++) {
			if (out->n >= HP_MAX_TEMPS) {
				hp_msg(m, false, "%s: temperatures beyond the first %d ignored", base, HP_MAX_TEMPS);
				return;
			}
			struct hp_temp *t = &out->t[out->n];
			struct hp_val v;
			size_t sl = strlen(files.name[j]) - strlen("_input");
			if (mkpath(file, dir, "/%s", files.name[j]) != 0)
				continue;
			read_val(file, &v, m);
			if (v.st == HP_ABSENT)   /* vanished, or not readable */
				continue;
			out->n++;
			snprintf(t->hwmon, sizeof t->hwmon, "%s", mons.name[i]);
			snprintf(t->chip, sizeof t->chip, "%s", chip);
			snprintf(t->sensor, sizeof t->sensor, "%.*s", (int)sl, files.name[j]);
			t->st = v.st;
			if (v.st == HP_OK && v.v > 1000u * 1000u) {   /* above 1000 °C: not a temperature */
				hp_msg(m, true, "%s: %llu millidegrees C is not a temperature", file, (unsigned long long)v.v);
				t->st = HP_INVALID;
			}
			t->temp_c = t->st == HP_OK ? (double)v.v / 1000.0 : 0;
			if (mkpath(file, dir, "/%s_label", t->sensor) == 0)
				read_str(file, t->label, sizeof t->label, m);
		}
	}
}

/* ---- NICs ------------------------------------------------------------------ */

void hp_read_nics(const char *root, struct hp_nics *out, struct hp_msgs *m)
{
	char base[PATH_LEN], file[PATH_LEN];
	struct dirlist dl;
	memset(out, 0, sizeof *out);
	if (mkpath(base, root, "/sys/class/net") != 0)
		return;
	list_dir(base, "", "", true, &dl, m);
	for (int i = 0; i < dl.n; i++) {
		if (out->n >= HP_MAX_NICS) {
			hp_msg(m, false, "%s: interfaces beyond the first %d ignored", base, HP_MAX_NICS);
			break;
		}
		struct hp_nic *n = &out->nic[out->n++];
		snprintf(n->name, sizeof n->name, "%s", dl.name[i]);
		for (int c = 0; c < HP_NIC_NCOUNTERS; c++)
			if (mkpath(file, base, "/%s/statistics/%s", n->name, nic_counter_names[c]) == 0)
				read_val(file, &n->c[c], m);
	}
}

/* ---- InfiniBand / RoCE -------------------------------------------------------- */

/* "4: ACTIVE" */
static void parse_state(const char *file, const char *text, struct hp_ibport *p, struct hp_msgs *m)
{
	const char *s = text;
	int num = 0, nd = 0;
	for (; *s >= '0' && *s <= '9' && nd < 4; s++, nd++)
		num = num * 10 + (*s - '0');
	if (nd == 0 || nd == 4 || *s != ':') {
		hp_msg(m, true, "%s: not \"N: STATE\" (\"%.40s\")", file, text);
		p->state_st = HP_INVALID;
		snprintf(p->state, sizeof p->state, "%s", text);
		return;
	}
	for (s++; *s == ' '; s++)
		;
	p->state_num = num;
	snprintf(p->state, sizeof p->state, "%s", s);
	p->state_st = HP_OK;
}

/* "100 Gb/sec (4X EDR)" */
static void parse_rate(const char *file, const char *text, struct hp_ibport *p, struct hp_msgs *m)
{
	char *end;
	snprintf(p->rate, sizeof p->rate, "%s", text);
	errno = 0;
	double g = text[0] >= '0' && text[0] <= '9' ? strtod(text, &end) : -1;
	if (g < 0 || errno != 0 || !isfinite(g) || strncmp(end, " Gb/sec", 7) != 0) {
		hp_msg(m, true, "%s: not \"N Gb/sec ...\" (\"%.40s\")", file, text);
		p->rate_st = HP_INVALID;
		return;
	}
	p->rate_gbps = g;
	p->rate_st = HP_OK;
}

void hp_read_ib(const char *root, struct hp_ib *out, struct hp_msgs *m)
{
	char base[PATH_LEN], ports[PATH_LEN], file[PATH_LEN], text[HP_NAME];
	struct dirlist devs, pl;
	memset(out, 0, sizeof *out);
	if (mkpath(base, root, "/sys/class/infiniband") != 0)
		return;
	list_dir(base, "", "", true, &devs, m);
	for (int i = 0; i < devs.n; i++) {
		if (mkpath(ports, base, "/%s/ports", devs.name[i]) != 0)
			continue;
		list_dir(ports, "", "", true, &pl, m);
		for (int j = 0; j < pl.n; j++) {
			uint64_t num;
			const char *why;
			if (hp_parse_u64(pl.name[j], &num, &why) != 0 || num > INT_MAX) {
				hp_msg(m, false, "%s/%s: not a port number, skipped", ports, pl.name[j]);
				continue;
			}
			if (out->n >= HP_MAX_IB) {
				hp_msg(m, false, "%s: IB ports beyond the first %d ignored", base, HP_MAX_IB);
				return;
			}
			struct hp_ibport *p = &out->p[out->n++];
			snprintf(p->dev, sizeof p->dev, "%s", devs.name[i]);
			p->port = (int)num;
			int rc;
			if (mkpath(file, ports, "/%s/state", pl.name[j]) == 0 &&
			    (rc = read_str(file, text, sizeof text, m)) != 1) {
				if (rc == 0)
					parse_state(file, text, p, m);
				else
					p->state_st = HP_INVALID;
			}
			if (mkpath(file, ports, "/%s/rate", pl.name[j]) == 0 &&
			    (rc = read_str(file, text, sizeof text, m)) != 1) {
				if (rc == 0)
					parse_rate(file, text, p, m);
				else
					p->rate_st = HP_INVALID;
			}
			if (mkpath(file, ports, "/%s/link_layer", pl.name[j]) == 0)
				read_str(file, p->link_layer, sizeof p->link_layer, m);
			for (int c = 0; c < HP_IB_NCOUNTERS; c++)
				if (mkpath(file, ports, "/%s/counters/%s", pl.name[j], ib_counter_names[c]) == 0)
					read_val(file, &p->c[c], m);
		}
	}
}

/* ---- disk and everything --------------------------------------------------- */

void hp_read_disk(const char *path, struct hp_disk *out, struct hp_msgs *m)
{
	struct statvfs sv;
	memset(out, 0, sizeof *out);
	if (statvfs(path, &sv) != 0) {
		hp_msg(m, true, "%s: statvfs: %s", path, strerror(errno));
		out->st = HP_INVALID;
		return;
	}
	uint64_t fr = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	if (__builtin_mul_overflow((uint64_t)sv.f_bavail, fr, &out->free_bytes) ||
	    __builtin_mul_overflow((uint64_t)sv.f_blocks, fr, &out->total_bytes)) {
		hp_msg(m, true, "%s: statvfs: sizes overflow", path);
		out->st = HP_INVALID;
		out->free_bytes = out->total_bytes = 0;
		return;
	}
	out->st = HP_OK;
}

void hp_read_host(const char *root, struct hp_host *out, struct hp_msgs *m)
{
	hp_read_cpustat(root, &out->cpu, m);
	hp_read_mem(root, &out->mem, m);
	hp_read_rapl(root, &out->rapl, m);
	hp_read_temps(root, &out->temps, m);
	hp_read_nics(root, &out->nics, m);
	hp_read_ib(root, &out->ib, m);
	hp_read_disk(root, &out->disk, m);
}
