/* runmetric — the run_metric table of a run database (see runmetric.h). */
#include "analysis/runmetric.h"

#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/mrun.h"

/* ---- the build id ------------------------------------------------------------ */

static char build_hex[2 * 64 + 1];
static bool build_done;

/* The first object dl_iterate_phdr reports is the program itself. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t nsz = (nh->n_namesz + 3u) & ~3u, dsz = (nh->n_descsz + 3u) & ~3u;
			const char *name = p + sizeof *nh, *desc = name + nsz;
			if (desc + dsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
			    nh->n_descsz > 0 && nh->n_descsz <= 64) {
				for (size_t k = 0; k < nh->n_descsz; k++)
					snprintf(build_hex + 2 * k, 3, "%02x", (unsigned)(unsigned char)desc[k]);
				return 1;
			}
			p = desc + dsz;
		}
	}
	return 1;   /* the program has none: do not look into the libraries */
}

const char *runmetric_build_id(void)
{
	if (!build_done) {
		dl_iterate_phdr(find_build_id, NULL);
		build_done = true;
	}
	return build_hex;
}

/* ---- writing ----------------------------------------------------------------- */

static const char *until_name(enum metric_until u)
{
	return u == METRIC_UNTIL_ARRIVALS ? "arrivals" : "end";
}

int runmetric_store(sqlite3 *db, const char *path, const struct metric_window *w, char *err,
                    size_t errlen)
{
	const char *build = runmetric_build_id();
	if (!*build)
		return 0;
	struct mrun r;
	struct metric_set s;
	if (mrun_open_conn(db, path, &r, err, errlen) < 0)
		return -1;
	int rc = mrun_metrics(&r, w, &s, err, errlen);
	mrun_close(&r);
	if (rc < 0) {
		metric_set_fini(&s);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	int ret = -1;
	if (sqlite3_exec(db, "CREATE TABLE run_metric (build TEXT NOT NULL, warmup_s REAL NOT NULL, "
	                 "cooldown_s REAL NOT NULL, until TEXT NOT NULL, t0_us INTEGER NOT NULL, "
	                 "t1_us INTEGER NOT NULL, name TEXT NOT NULL, value REAL, "
	                 "PRIMARY KEY (build, warmup_s, cooldown_s, until, name))", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO run_metric VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
	                       NULL) != SQLITE_OK) {
		db_fail(db, path, "writing table run_metric", err, errlen);
		goto out;
	}
	sqlite3_bind_text(st, 1, build, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, s.window.warmup_s);
	sqlite3_bind_double(st, 3, s.window.cooldown_s);
	sqlite3_bind_text(st, 4, until_name(s.window.until), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, s.t0_us);
	sqlite3_bind_int64(st, 6, s.t1_us);
	for (size_t k = 0; k < s.n; k++) {
		sqlite3_bind_text(st, 7, s.v[k].name, -1, SQLITE_STATIC);
		if (isnan(s.v[k].v))
			sqlite3_bind_null(st, 8);
		else
			sqlite3_bind_double(st, 8, s.v[k].v);
		if (sqlite3_step(st) != SQLITE_DONE) {
			db_fail(db, path, "writing table run_metric", err, errlen);
			goto out;
		}
		sqlite3_reset(st);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	metric_set_fini(&s);
	return ret;
}

/* ---- reading ----------------------------------------------------------------- */

/* The window metric_run_load would use: w when given, else the run's
 * recorded "measure" (meta), else the whole run (mrun_window's rule). */
static int wanted_window(sqlite3 *db, const char *path, const struct metric_window *w,
                         struct metric_window *used, char *err, size_t errlen)
{
	memset(used, 0, sizeof *used);
	if (w && w->given) {
		*used = *w;
		return 0;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'measure'", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, path, "reading table meta", err, errlen);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		char why[256];
		if (metric_window_from_json_text((const char *)sqlite3_column_text(st, 0), used, why,
		                                 sizeof why) < 0)
			memset(used, 0, sizeof *used);
	}
	sqlite3_finalize(st);
	return 0;
}

int runmetric_load(sqlite3 *db, const char *path, const struct metric_window *w,
                   struct metric_set *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	const char *build = runmetric_build_id();
	sqlite3_stmt *st = NULL;
	if (!*build)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
	                       "'run_metric'", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "cannot read", err, errlen);
	int have = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	st = NULL;
	struct metric_window used;
	if (!have || wanted_window(db, path, w, &used, err, errlen) < 0)
		return have ? -1 : 0;
	if (sqlite3_prepare_v2(db, "SELECT name, value, t0_us, t1_us FROM run_metric WHERE build = ? "
	                       "AND warmup_s = ? AND cooldown_s = ? AND until = ? ORDER BY name", -1,
	                       &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "reading table run_metric", err, errlen);
	sqlite3_bind_text(st, 1, build, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, used.warmup_s);
	sqlite3_bind_double(st, 3, used.cooldown_s);
	sqlite3_bind_text(st, 4, until_name(used.until), -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double v = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
		if (!name || metric_set_put(out, name, v) < 0) {
			db_failf(err, errlen, "%s: reading table run_metric: out of memory", path);
			rc = -1;
			break;
		}
		out->t0_us = sqlite3_column_int64(st, 2);
		out->t1_us = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		if (rc != -1)
			db_fail(db, path, "reading table run_metric", err, errlen);
		metric_set_fini(out);
		return -1;
	}
	if (out->n == 0)
		return 0;
	out->window = used;
	out->whole = used.warmup_s == 0 && used.cooldown_s == 0 && used.until == METRIC_UNTIL_END;
	return 1;
}
