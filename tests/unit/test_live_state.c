/* Live mode's inputs and state, below the daemon: the LIVE.json loader
 * (values, defaults, paths resolved against the config's directory, errors
 * naming the file and the JSON path), a node reading's text form, and the
 * state database (meta, inbox, recording, decisions, jobs, `hetlab queue`
 * in text and JSON). The engine in live mode is tests/unit/test_live.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/reading.h"
#include "live/state.h"
#include "config/livecfg.h"
#include "config/scenario.h"
#include "tests/testutil.h"
#include "tests/testutil.h"

#define S(x) simtime_from_s(x)

/* ---- temporary directories ---- */

static char *tmpdir_new(void) { return tu_tmpdir_new("live-unit"); }
static void tmpdir_free(char *d) { tu_tmpdir_free(d); }

static char *write_in(const char *dir, const char *name, const char *text)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

#define HAS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); if (!strstr(h_, n_)) \
	fail_msg("expected \"%s\" in \"%s\"", n_, h_); } while (0)

/* ---- livecfg ---- */

static void test_livecfg_full(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char *p = write_in(d, "live.json",
		"{ \"scenario\": \"scn.json\", \"policy\": \"fcfs\", \"executor\": \"slurm\", \"state_dir\": \"st\",\n"
		"  \"tick_s\": 0.5, \"probe_every_s\": 2, \"record_every_s\": 30, \"results_every_s\": 0,\n"
		"  \"max_jobs\": 500, \"max_pending_per_user\": 40, \"hot_c\": 90, \"cool_c\": 75, \"xid_repair_s\": 3600, \"stale_s\": 7.5,\n"
		"  \"probes\": { \"default\": \"host\", \"n1\": \"file:agent/%n.json\", \"n2\": \"none\",\n"
		"              \"n3\": \"file:/abs/x.json\" },\n"
		"  \"local\": { \"signal\": \"SIGUSR2\", \"cgroup_parent\": \"hetlab.slice\", \"nvml_lib\": \"/opt/nvml.so\",\n"
		"             \"sysfs_root\": \"fake\" },\n"
		"  \"slurm\": { \"bindir\": \"/opt/slurm/bin\", \"partition\": \"gpu\" },\n"
		"  \"metrics\": { \"addr\": \"0.0.0.0\", \"port\": 9100, \"allow_public\": true },\n"
		"  \"audit_key\": \"keys/audit.key\" }\n");
	struct live_cfg *c = malloc(sizeof *c);
	char err[1024] = "", want[PATH_MAX + 64];
	if (livecfg_load(p, c, err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(c->file, p);
	snprintf(want, sizeof want, "%s/scn.json", d);
	assert_string_equal(c->scenario, want);
	snprintf(want, sizeof want, "%s/st", d);
	assert_string_equal(c->state_dir, want);
	assert_string_equal(c->policy, "fcfs");
	assert_string_equal(c->exec, "slurm");
	assert_string_equal(c->audit_key, "keys/audit.key");   /* as written: resolved where it is used */
	assert_true(c->tick_s == 0.5);
	assert_true(c->probe_every_s == 2);
	assert_true(c->record_every_s == 30);
	assert_true(c->results_every_s == 0);
	assert_int_equal(c->max_jobs, 500);
	assert_int_equal(c->max_pending_per_user, 40);
	assert_true(c->hot_c == 90);
	assert_true(c->cool_c == 75);
	assert_true(c->xid_repair_s == 3600);
	assert_true(c->stale_s == 7.5);
	assert_int_equal(c->nprobe, 4);
	assert_int_equal(c->sig, SIGUSR2);
	assert_string_equal(c->cgroup_parent, "hetlab.slice");
	assert_string_equal(c->nvml_lib, "/opt/nvml.so");
	snprintf(want, sizeof want, "%s/fake", d);
	assert_string_equal(c->sysfs_root, want);
	assert_string_equal(c->slurm.bindir, "/opt/slurm/bin");
	assert_string_equal(c->slurm.partition[0], "gpu");
	assert_int_equal(c->slurm.npartition, 1);
	assert_string_equal(c->metrics_addr, "0.0.0.0");
	assert_int_equal(c->metrics_port, 9100);
	assert_true(c->metrics_public);
	/* a node's own entry wins over the default, which comes first */
	assert_string_equal(c->probe[0].node, "");
	const struct live_probe_src *ps = livecfg_probe(c, "n1");
	assert_non_null(ps);
	assert_string_equal(ps->node, "n1");
	assert_int_equal(ps->kind, LIVE_PROBE_FILE);
	snprintf(want, sizeof want, "%s/agent/%%n.json", d);
	assert_string_equal(ps->path, want);
	ps = livecfg_probe(c, "n2");
	assert_int_equal(ps->kind, LIVE_PROBE_NONE);
	ps = livecfg_probe(c, "n3");
	assert_int_equal(ps->kind, LIVE_PROBE_FILE);
	assert_string_equal(ps->path, "/abs/x.json");
	ps = livecfg_probe(c, "other");
	assert_non_null(ps);
	assert_string_equal(ps->node, "");
	assert_int_equal(ps->kind, LIVE_PROBE_HOST);
	free(c);
	free(p);
	tmpdir_free(d);
}

static void test_livecfg_defaults(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char *p = write_in(d, "min.json", "{ \"scenario\": \"/etc/scn.json\" }");
	struct live_cfg *c = malloc(sizeof *c);
	char err[1024] = "", want[PATH_MAX + 64];
	if (livecfg_load(p, c, err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(c->scenario, "/etc/scn.json");
	snprintf(want, sizeof want, "%s/hetlab-state", d);
	assert_string_equal(c->state_dir, want);
	assert_string_equal(c->policy, "");
	assert_string_equal(c->exec, "local");
	assert_true(c->tick_s == 1);
	assert_true(c->probe_every_s == 10);
	assert_true(c->record_every_s == 60);
	assert_true(c->results_every_s == 300);
	assert_int_equal(c->max_jobs, 100000);
	assert_int_equal(c->max_pending_per_user, 10000);
	assert_true(c->stale_s == 30);
	assert_true(c->hot_c == 0 && c->cool_c == 0);
	assert_true(c->xid_repair_s == 86400);
	assert_int_equal(c->sig, SIGUSR1);
	assert_string_equal(c->sysfs_root, "/");
	assert_string_equal(c->metrics_addr, "");
	assert_int_equal(c->nprobe, 0);
	assert_null(livecfg_probe(c, "n1"));
	free(p);
	/* stale_s follows probe_every_s; a lone string is the default source;
	 * "metrics": {} means the local default endpoint */
	p = write_in(d, "p.json", "{ \"scenario\": \"s.json\", \"probe_every_s\": 4, \"probes\": \"file:r/%n\",\n"
	             "  \"executor\": \"local\", \"local\": { \"signal\": \"TERM\" }, \"metrics\": {} }");
	if (livecfg_load(p, c, err, sizeof err))
		fail_msg("%s", err);
	assert_true(c->stale_s == 12);
	assert_int_equal(c->sig, SIGTERM);
	assert_int_equal(c->nprobe, 1);
	const struct live_probe_src *ps = livecfg_probe(c, "anything");
	assert_non_null(ps);
	assert_int_equal(ps->kind, LIVE_PROBE_FILE);
	snprintf(want, sizeof want, "%s/r/%%n", d);
	assert_string_equal(ps->path, want);
	assert_string_equal(c->metrics_addr, "127.0.0.1");
	assert_int_equal(c->metrics_port, 9464);
	assert_false(c->metrics_public);
	free(p);
	free(c);
	tmpdir_free(d);
}

static void test_livecfg_errors(void **state)
{
	(void)state;
	static const struct { const char *text, *want; } cases[] = {
		{ "{ \"scenario\": \"s.json\", \"bogus\": 1 }", ": $: unknown key \"bogus\"" },
		{ "{ \"scenario\": \"s.json\", \"audit_key\": \"\" }", ": $.audit_key: expected the path of a key file" },
		{ "{ \"scenario\": \"s.json\", \"executor\": \"pbs\" }",
		  ": $.executor: expected \"local\", \"slurm\" or \"instant\", got \"pbs\"" },
		{ "{ \"scenario\": \"s.json\", \"local\": { \"signal\": \"KILL\" } }",
		  ": $.local.signal: expected USR1, USR2, TERM, INT, HUP or QUIT, got \"KILL\"" },
		{ "{ \"scenario\": \"s.json\", \"local\": { \"sig\": \"USR1\" } }", ": $.local: unknown key \"sig\"" },
		{ "{ \"scenario\": \"s.json\", \"hot_c\": 80, \"cool_c\": 80 }",
		  ": $.cool_c: expected a temperature below hot_c (80), got 80" },
		{ "{ \"scenario\": \"s.json\", \"hot_c\": 80, \"cool_c\": 95 }",
		  ": $.cool_c: expected a temperature below hot_c (80), got 95" },
		{ "{ \"scenario\": \"s.json\", \"probes\": { \"n1\": 42 } }",
		  ": $.probes.n1: expected \"host\", \"none\" or \"file:PATH\", got " },
		{ "{ \"scenario\": \"s.json\", \"probes\": 42 }",
		  ": $.probes: expected a string or an object of node" },
		{ "{ \"scenario\": \"s.json\", \"probes\": \"ftp:x\" }",
		  ": $.probes: expected \"host\", \"none\" or \"file:PATH\", got \"ftp:x\"" },
		{ "{ \"scenario\": \"s.json\", \"probes\": \"file:\" }",
		  ": $.probes: expected \"host\", \"none\" or \"file:PATH\", got \"file:\"" },
		{ "{ \"scenario\": \"s.json\", \"metrics\": { \"port\": 70000 } }",
		  ": $.metrics.port: expected an integer in [0, 65535], got 70000" },
		{ "{ \"scenario\": \"s.json\", \"tick_s\": 0 }", ": $.tick_s: expected a number in [0.001, 3600], got 0" },
		{ "{ \"scenario\": \"s.json\", \"max_jobs\": 0 }", ": $.max_jobs: expected an integer in [1, 100000000], got 0" },
		{ "{ \"scenario\": \"s.json\", \"max_pending_per_user\": -1 }",
		  ": $.max_pending_per_user: expected an integer in [0, 100000000], got -1" },
		{ "{ \"policy\": \"fcfs\" }", ": $.scenario: missing (expected a string)" },
		{ "[ 1 ]", ": $: expected an object, got " },
	};
	char *d = tmpdir_new();
	struct live_cfg *c = malloc(sizeof *c);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = write_in(d, "bad.json", cases[i].text);
		char err[1024] = "", want[PATH_MAX + 256];
		if (livecfg_load(p, c, err, sizeof err) == 0)
			fail_msg("case %zu loaded: %s", i, cases[i].text);
		snprintf(want, sizeof want, "%s%s", p, cases[i].want);
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("case %zu: got \"%s\", expected it to start with \"%s\"", i, err, want);
		free(p);
	}
	/* not JSON: the file, line and column */
	char *p = write_in(d, "bad.json", "{ \"scenario\": \n  ]");
	char err[1024] = "", want[PATH_MAX + 64];
	assert_int_equal(livecfg_load(p, c, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:2:", p);
	HAS(err, want);
	free(p);
	free(c);
	tmpdir_free(d);
}

/* ---- reading ---- */

static void test_reading_parse(void **state)
{
	(void)state;
	struct sim_reading r;
	char err[512] = "";
	const char *full = "{\"power_w\": 812.5, \"temp_c\": 71.0, \"util\": 0.93, \"gpu_errors\": 2, \"bad_gpu\": 3,"
	                   " \"down\": true}";
	if (reading_parse("agent.json", full, strlen(full), &r, err, sizeof err))
		fail_msg("%s", err);
	assert_true(r.ok);
	assert_true(r.power_w == 812.5);
	assert_true(r.temp_c == 71.0);
	assert_true(r.util == 0.93);
	assert_int_equal(r.gpu_errors, 2);
	assert_int_equal(r.bad_gpu, 3);
	assert_int_equal(r.down, 1);

	/* len bounds the text: what follows is not read */
	const char *part = "{\"temp_c\": 50}garbage";
	if (reading_parse("x", part, 14, &r, err, sizeof err))
		fail_msg("%s", err);
	assert_true(r.ok);
	assert_true(r.temp_c == 50);
	assert_true(isnan(r.power_w));
	assert_true(isnan(r.util));
	assert_int_equal(r.gpu_errors, 0);
	assert_int_equal(r.bad_gpu, -1);
	assert_int_equal(r.down, -1);

	const char *nul = "{\"power_w\": null, \"util\": 0, \"down\": false}";
	assert_int_equal(reading_parse("x", nul, strlen(nul), &r, err, sizeof err), 0);
	assert_true(isnan(r.power_w) && isnan(r.temp_c));
	assert_true(r.util == 0);
	assert_int_equal(r.down, 0);
	assert_true(r.ok);
}

static void test_reading_errors(void **state)
{
	(void)state;
	static const struct { const char *text, *want; } cases[] = {
		{ "{\"temp_c\": }", "agent/h1.json:1:12: " },
		{ "", "agent/h1.json:1:0: " },
		{ "{}", "agent/h1.json: $: expected a non-empty object of readings" },
		{ "[1, 2]", "agent/h1.json: $: expected a non-empty object of readings" },
		{ "{\"temp_c\": 50, \"tempc\": 50}", "agent/h1.json: $.tempc: unknown key (expected power_w, temp_c" },
		{ "{\"down\": 1}", "agent/h1.json: $.down: expected true or false" },
		{ "{\"power_w\": \"812\"}", "agent/h1.json: $.power_w: expected a number" },
		{ "{\"temp_c\": 400}", "agent/h1.json: $.temp_c: expected a number in [-100, 300], got 400" },
		{ "{\"util\": 1.5}", "agent/h1.json: $.util: expected a number in [0, 1], got 1.5" },
		{ "{\"power_w\": -1}", "agent/h1.json: $.power_w: expected a number in [0, 1e+07], got -1" },
		{ "{\"gpu_errors\": 1.5}", "agent/h1.json: $.gpu_errors: expected a whole number, got 1.5" },
		{ "{\"bad_gpu\": 64}", "agent/h1.json: $.bad_gpu: expected a number in [-1, 63], got 64" },
		{ "{\"temp_c\": 50, \"temp_c\": 51}", "agent/h1.json:1:" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sim_reading r;
		char err[512] = "";
		if (reading_parse("agent/h1.json", cases[i].text, strlen(cases[i].text), &r, err, sizeof err) == 0)
			fail_msg("case %zu parsed: %s", i, cases[i].text);
		if (strncmp(err, cases[i].want, strlen(cases[i].want)) != 0)
			fail_msg("case %zu: got \"%s\", expected it to start with \"%s\"", i, err, cases[i].want);
		assert_false(r.ok);
	}
}

static void test_reading_format(void **state)
{
	(void)state;
	const struct sim_reading in[] = {
		{ .power_w = 812.5, .temp_c = 71.25, .util = 0.1 + 0.2, .gpu_errors = 3, .bad_gpu = 7, .down = 0, .ok = true },
		{ .power_w = NAN, .temp_c = -12.5, .util = NAN, .gpu_errors = 0, .bad_gpu = -1, .down = -1, .ok = true },
		{ .power_w = 1.0 / 3, .temp_c = NAN, .util = 1, .gpu_errors = 1000000, .bad_gpu = 63, .down = 1, .ok = true },
	};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		char buf[256];
		int n = reading_format(&in[i], buf, sizeof buf);
		assert_true(n > 0);
		assert_int_equal((size_t)n, strlen(buf));
		assert_int_equal(isnan(in[i].power_w), strstr(buf, "power_w") == NULL);
		assert_int_equal(isnan(in[i].temp_c), strstr(buf, "temp_c") == NULL);
		assert_int_equal(isnan(in[i].util), strstr(buf, "util") == NULL);
		assert_int_equal(in[i].down < 0, strstr(buf, "down") == NULL);
		assert_null(strstr(buf, "nan"));
		struct sim_reading out;
		char err[512] = "";
		if (reading_parse("fmt", buf, (size_t)n, &out, err, sizeof err))
			fail_msg("%s (of %s)", err, buf);
		assert_true(out.ok);
		assert_true(isnan(in[i].power_w) ? isnan(out.power_w) : out.power_w == in[i].power_w);
		assert_true(isnan(in[i].temp_c) ? isnan(out.temp_c) : out.temp_c == in[i].temp_c);
		assert_true(isnan(in[i].util) ? isnan(out.util) : out.util == in[i].util);
		assert_int_equal(out.gpu_errors, in[i].gpu_errors);
		assert_int_equal(out.bad_gpu, in[i].bad_gpu);
		assert_int_equal(out.down, in[i].down);
	}
	char buf[256];
	assert_int_equal(reading_format(&in[1], buf, sizeof buf), (int)strlen("{\"temp_c\": -12.5, \"gpu_errors\": 0, \"bad_gpu\": -1}"));
	assert_string_equal(buf, "{\"temp_c\": -12.5, \"gpu_errors\": 0, \"bad_gpu\": -1}");
	/* too small: -1, never a truncated object that parses */
	int full = (int)strlen(buf);
	for (int len = 1; len <= full; len++)
		assert_int_equal(reading_format(&in[1], buf, (size_t)len), -1);
	assert_int_equal(reading_format(&in[1], buf, (size_t)full + 1), full);
	assert_int_equal(reading_format(&in[0], buf, 20), -1);
}

/* ---- state ---- */

struct inbox_seen {
	int n, stop_at;
	int64_t seq[8], job[8];
	char kind[8][16], spec[8][32];
	bool spec_null[8];
};

static int inbox_fn(void *ctx, const struct inbox_row *r)
{
	struct inbox_seen *w = ctx;
	assert_true(w->n < 8);
	w->seq[w->n] = r->seq;
	w->job[w->n] = r->job;
	snprintf(w->kind[w->n], sizeof w->kind[0], "%s", r->kind);
	w->spec_null[w->n] = r->spec == NULL;
	snprintf(w->spec[w->n], sizeof w->spec[0], "%s", r->spec ? r->spec : "");
	w->n++;
	return w->n == w->stop_at ? 7 : 0;
}

struct rec_seen {
	int n, stop_at;
	struct rec_row r[8];
	char data[8][64];
	bool data_null[8];
};

static int rec_fn(void *ctx, const struct rec_row *r)
{
	struct rec_seen *w = ctx;
	assert_true(w->n < 8);
	w->r[w->n] = *r;
	w->r[w->n].data = NULL;
	w->data_null[w->n] = r->data == NULL;
	snprintf(w->data[w->n], sizeof w->data[0], "%s", r->data ? r->data : "");
	w->n++;
	return w->n == w->stop_at ? 5 : 0;
}

static char *sql_text(struct lstate *st, const char *sql)
{
	sqlite3_stmt *q = NULL;
	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &q, NULL), SQLITE_OK);
	char *v = NULL;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		v = strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return v;
}

static void test_state_meta_inbox(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char dir[4200], err[1024] = "", path[4300];
	snprintf(dir, sizeof dir, "%s/st", d);
	struct lstate st;
	if (lstate_open(&st, dir, err, sizeof err))
		fail_msg("%s", err);
	snprintf(path, sizeof path, "%s/state.db", dir);
	assert_string_equal(st.path, path);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);

	char out[16];
	assert_int_equal(lstate_meta_get(&st, "epoch_unix_us", out, sizeof out), 1);
	assert_string_equal(out, "");
	assert_null(lstate_meta_dup(&st, "epoch_unix_us"));
	assert_int_equal(lstate_meta_set(&st, "k", "first", err, sizeof err), 0);
	assert_int_equal(lstate_meta_set(&st, "k", "second value, longer", err, sizeof err), 0);
	assert_int_equal(lstate_meta_get(&st, "k", out, sizeof out), 0);
	assert_string_equal(out, "second value, l");   /* cut to the buffer */
	char *v = lstate_meta_dup(&st, "k");
	assert_non_null(v);
	assert_string_equal(v, "second value, longer");
	free(v);

	assert_int_equal(lstate_inbox_add(&st, "submit", -1, "{\"a\": 1}", err, sizeof err), 0);
	assert_int_equal(lstate_inbox_add(&st, "cancel", 5, NULL, err, sizeof err), 0);
	assert_int_equal(lstate_inbox_add(&st, "submit", -1, "{\"b\": 2}", err, sizeof err), 0);
	struct inbox_seen w = { 0 };
	assert_int_equal(lstate_inbox_each(&st, inbox_fn, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 3);
	assert_true(w.seq[0] < w.seq[1] && w.seq[1] < w.seq[2]);
	assert_string_equal(w.kind[0], "submit");
	assert_int_equal(w.job[0], -1);
	assert_string_equal(w.spec[0], "{\"a\": 1}");
	assert_string_equal(w.kind[1], "cancel");
	assert_int_equal(w.job[1], 5);
	assert_true(w.spec_null[1]);
	assert_string_equal(w.spec[2], "{\"b\": 2}");
	/* fn's non-zero return stops the walk and is returned */
	struct inbox_seen w2 = { .stop_at = 1 };
	assert_int_equal(lstate_inbox_each(&st, inbox_fn, &w2, err, sizeof err), 7);
	assert_int_equal(w2.n, 1);
	/* consumed inside a transaction; a rolled-back delete stays */
	assert_int_equal(lstate_begin(&st, err, sizeof err), 0);
	assert_int_equal(lstate_inbox_del(&st, w.seq[0], err, sizeof err), 0);
	lstate_rollback(&st);
	assert_int_equal(lstate_begin(&st, err, sizeof err), 0);
	assert_int_equal(lstate_inbox_del(&st, w.seq[1], err, sizeof err), 0);
	assert_int_equal(lstate_commit(&st, err, sizeof err), 0);
	struct inbox_seen w3 = { 0 };
	assert_int_equal(lstate_inbox_each(&st, inbox_fn, &w3, err, sizeof err), 0);
	assert_int_equal(w3.n, 2);
	assert_int_equal(w3.seq[0], w.seq[0]);
	assert_int_equal(w3.seq[1], w.seq[2]);
	/* a new request gets a seq after every earlier one */
	assert_int_equal(lstate_inbox_add(&st, "cancel", 0, NULL, err, sizeof err), 0);
	struct inbox_seen w4 = { 0 };
	assert_int_equal(lstate_inbox_each(&st, inbox_fn, &w4, err, sizeof err), 0);
	assert_int_equal(w4.n, 3);
	assert_true(w4.seq[2] > w.seq[2]);
	assert_int_equal(w4.job[2], 0);
	lstate_close(&st);

	/* a second open of the same directory sees it all */
	assert_int_equal(lstate_open(&st, dir, err, sizeof err), 0);
	v = lstate_meta_dup(&st, "k");
	assert_string_equal(v, "second value, longer");
	free(v);
	lstate_close(&st);
	tmpdir_free(d);
}

static void test_state_rec(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char err[1024] = "";
	struct lstate st;
	if (lstate_open(&st, d, err, sizeof err))
		fail_msg("%s", err);
	const struct rec_row rows[] = {
		{ .t_us = 100, .after_us = 50, .kind = RIN_SUBMIT, .job = 0, .node = -1, .data = (char *)"{\"class\": \"batch\"}" },
		{ .t_us = 5000000001LL, .after_us = 4999999999LL, .kind = RIN_END, .job = 0, .node = -1, .attempt = 2,
		  .state = JOB_FAILED, .reason = END_EXIT },
		{ .t_us = 5000000002LL, .after_us = 5000000001LL, .kind = RIN_READING, .job = -1, .node = 1,
		  .data = (char *)"{\"temp_c\": 95}" },
		{ .t_us = 5000000002LL, .after_us = 5000000001LL, .kind = RIN_CANCEL, .job = 3, .node = -1 },
	};
	for (int i = 0; i < 4; i++)
		if (lstate_rec_add(&st, &rows[i], err, sizeof err))
			fail_msg("%s", err);
	struct rec_seen w = { 0 };
	assert_int_equal(lstate_rec_each(&st, 0, rec_fn, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(w.r[i].seq, i + 1);
		assert_int_equal(w.r[i].t_us, rows[i].t_us);
		assert_int_equal(w.r[i].after_us, rows[i].after_us);
		assert_int_equal(w.r[i].kind, rows[i].kind);
		assert_int_equal(w.r[i].job, rows[i].job);
		assert_int_equal(w.r[i].node, rows[i].node);
		assert_int_equal(w.r[i].attempt, rows[i].attempt);
		assert_int_equal(w.r[i].state, rows[i].state);
		assert_int_equal(w.r[i].reason, rows[i].reason);
		assert_int_equal(w.data_null[i], rows[i].data == NULL);
		assert_string_equal(w.data[i], rows[i].data ? rows[i].data : "");
	}
	struct rec_seen w2 = { 0 };
	assert_int_equal(lstate_rec_each(&st, 2, rec_fn, &w2, err, sizeof err), 0);
	assert_int_equal(w2.n, 2);
	assert_int_equal(w2.r[0].seq, 3);
	assert_int_equal(w2.r[0].kind, RIN_READING);
	struct rec_seen w3 = { .stop_at = 2 };
	assert_int_equal(lstate_rec_each(&st, 0, rec_fn, &w3, err, sizeof err), 5);
	assert_int_equal(w3.n, 2);
	struct rec_seen w4 = { 0 };
	assert_int_equal(lstate_rec_each(&st, 4, rec_fn, &w4, err, sizeof err), 0);
	assert_int_equal(w4.n, 0);

	assert_string_equal(rec_in_name(RIN_READING), "reading");
	assert_string_equal(rec_in_name(RIN_N), "?");
	assert_int_equal(rec_in_parse("cancel"), RIN_CANCEL);
	assert_int_equal(rec_in_parse("Cancel"), -1);

	/* a row of an unknown kind (a newer daemon's, or damage) is an error naming it */
	assert_int_equal(sqlite3_exec(st.db, "INSERT INTO rec(t_us, after_us, kind) VALUES(9, 9, 'bogus')", NULL, NULL,
	                              NULL), SQLITE_OK);
	struct rec_seen w5 = { 0 };
	err[0] = 0;
	assert_int_equal(lstate_rec_each(&st, 0, rec_fn, &w5, err, sizeof err), -1);
	assert_int_equal(w5.n, 4);   /* the rows before it were given */
	char want[4400];
	snprintf(want, sizeof want, "%s: rec row 5: unknown kind 'bogus'", st.path);
	assert_string_equal(err, want);

	/* decisions */
	assert_int_equal(lstate_decision_add(&st, 10, "start", 1, 0, "h1:2c", err, sizeof err), 0);
	assert_int_equal(lstate_decision_add(&st, 20, "end", 1, -1, NULL, err, sizeof err), 0);
	assert_int_equal(lstate_decision_add(&st, 30, "drain", -1, 1, "hot: 95 C", err, sizeof err), 0);
	char **lines;
	int64_t n;
	assert_int_equal(lstate_decisions(&st, 20, &lines, &n, err, sizeof err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(lines[0], "10 start 1 0 h1:2c");
	assert_string_equal(lines[1], "20 end 1 -1 ");
	for (int64_t k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	assert_int_equal(lstate_decisions(&st, 9, &lines, &n, err, sizeof err), 0);
	assert_int_equal(n, 0);
	free(lines);
	assert_int_equal(lstate_decisions(&st, INT64_MAX, &lines, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(lines[2], "30 drain -1 1 hot: 95 C");
	for (int64_t k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	lstate_close(&st);
	tmpdir_free(d);
}

/* xref rows: open, replaced (open = 2: a Slurm job being replaced, to be
 * cancelled), closed; read back in the order they were written. */
struct xrefs { char text[256]; };

static int xref_text(void *ctx, const struct lstate_xref *x)
{
	struct xrefs *t = ctx;
	size_t n = strlen(t->text);
	snprintf(t->text + n, sizeof t->text - n, "%lld:%lld:%d:%s ", (long long)x->job, (long long)x->sid, x->attempt,
	         x->open ? "open" : x->replaced ? "replaced" : "closed");
	return 0;
}

static void test_state_xref(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char err[1024] = "";
	struct lstate st;
	if (lstate_open(&st, d, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(lstate_xref_add(&st, 4, 0, 101, "debug|1", err, sizeof err), 0);
	assert_int_equal(lstate_xref_add(&st, 4, 1, 102, "second|1", err, sizeof err), 0);
	assert_int_equal(lstate_xref_add(&st, 5, 0, 103, "debug|1", err, sizeof err), 0);
	assert_int_equal(lstate_xref_replaced(&st, 4, 101, err, sizeof err), 0);
	assert_int_equal(lstate_xref_close(&st, 5, 103, err, sizeof err), 0);
	struct xrefs t = { "" };
	assert_int_equal(lstate_xref_each(&st, xref_text, &t, err, sizeof err), 0);
	assert_string_equal(t.text, "4:101:0:replaced 4:102:1:open 5:103:0:closed ");
	assert_int_equal(lstate_xref_close(&st, 4, 101, err, sizeof err), 0);
	t.text[0] = '\0';
	assert_int_equal(lstate_xref_each(&st, xref_text, &t, err, sizeof err), 0);
	assert_string_equal(t.text, "4:101:0:closed 4:102:1:open 5:103:0:closed ");
	lstate_close(&st);
	tmpdir_free(d);
}

static char *queue_text(struct lstate *st, bool all, bool json)
{
	char *buf = NULL, err[1024] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (lstate_print_queue(st, f, all, json, err, sizeof err))
		fail_msg("%s", err);
	fclose(f);
	return buf;
}

static void test_state_jobs_queue(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char err[1024] = "", dir[4200];
	snprintf(dir, sizeof dir, "%s/st", d);
	struct lstate st;
	/* read-only open of a directory with no state */
	assert_int_equal(lstate_open_ro(&st, dir, err, sizeof err), -1);
	HAS(err, "no live state here");
	HAS(err, dir);
	assert_null(st.db);

	if (lstate_open(&st, dir, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(lstate_meta_set(&st, "epoch_unix_us", "1700000000000000", err, sizeof err), 0);
	struct lstate_job j0 = { .id = 0, .name = "train-a", .cls = "training", .tenant = 2, .state = "done",
	                         .submit_us = 1000000, .start_us = 1500000, .end_us = 9000000, .nodes = "h1",
	                         .attempt = 1, .reason = "", .ref = "", .spec = "{\"spec\": 0}" };
	struct lstate_job j1 = { .id = 1, .name = "serve", .cls = "inference", .tenant = 0, .state = "running",
	                         .submit_us = 2000000, .start_us = 2500000, .end_us = -1, .nodes = "h2",
	                         .attempt = 0, .reason = NULL, .ref = "4242", .spec = "{\"spec\": 1}" };
	struct lstate_job j2 = { .id = 2, .name = NULL, .cls = "batch", .tenant = 1, .state = "pending",
	                         .submit_us = 3000000, .start_us = -1, .end_us = -1, .nodes = NULL,
	                         .attempt = 0, .reason = "waiting", .ref = NULL, .spec = "{\"spec\": 2}" };
	assert_int_equal(lstate_job_put(&st, &j0, err, sizeof err), 0);
	assert_int_equal(lstate_job_put(&st, &j1, err, sizeof err), 0);
	assert_int_equal(lstate_job_put(&st, &j2, err, sizeof err), 0);
	/* a later put without a spec keeps the first one; with one replaces it */
	j1.spec = NULL;
	j1.attempt = 1;
	assert_int_equal(lstate_job_put(&st, &j1, err, sizeof err), 0);
	char *v = sql_text(&st, "SELECT spec || '|' || attempt FROM jobs WHERE id = 1");
	assert_string_equal(v, "{\"spec\": 1}|1");
	free(v);
	j1.attempt = 0;
	assert_int_equal(lstate_job_put(&st, &j1, err, sizeof err), 0);
	j0.spec = "{\"spec\": \"new\"}";
	assert_int_equal(lstate_job_put(&st, &j0, err, sizeof err), 0);
	v = sql_text(&st, "SELECT spec FROM jobs WHERE id = 0");
	assert_string_equal(v, "{\"spec\": \"new\"}");
	free(v);
	v = sql_text(&st, "SELECT count(*) FROM jobs");
	assert_string_equal(v, "3");
	free(v);
	char ref[48];
	assert_int_equal(lstate_job_ref(&st, 1, ref, sizeof ref), 0);
	assert_string_equal(ref, "4242");
	assert_int_equal(lstate_job_ref(&st, 2, ref, sizeof ref), 0);
	assert_string_equal(ref, "");
	assert_int_equal(lstate_job_ref(&st, 99, ref, sizeof ref), 0);
	assert_string_equal(ref, "");
	assert_int_equal(lstate_inbox_add(&st, "submit", -1, "{}", err, sizeof err), 0);
	assert_int_equal(lstate_inbox_add(&st, "cancel", 2, NULL, err, sizeof err), 0);
	lstate_close(&st);

	assert_int_equal(lstate_open_ro(&st, dir, err, sizeof err), 0);
	char *t = queue_text(&st, false, false);
	char hdr[256], l1[256], l2[256];
	snprintf(hdr, sizeof hdr, "%6s  %-16s %-10s %-9s %6s %-13s %9s %9s %3s  %-30s %s\n", "ID", "NAME", "USER", "CLASS",
	         "TENANT", "STATE", "SUBMIT_S", "START_S", "TRY", "NODES", "REASON/REF");
	snprintf(l1, sizeof l1, "%6d  %-16s %-10s %-9s %6d %-13s %9.1f %9s %3d  %-30s %s\n", 1, "serve", "-", "inference",
	         0, "running", 2.0, "2.5", 0, "h2", "4242");
	snprintf(l2, sizeof l2, "%6d  %-16s %-10s %-9s %6d %-13s %9.1f %9s %3d  %-30s %s\n", 2, "-", "-", "batch", 1,
	         "pending", 3.0, "-", 0, "-", "waiting");
	char want[1024];
	snprintf(want, sizeof want, "%s%s%s2 jobs not finished; 1 submitted and not yet taken by the daemon\n", hdr, l1,
	         l2);
	assert_string_equal(t, want);
	free(t);
	t = queue_text(&st, true, false);
	HAS(t, "     0  train-a          -          training       2 done");
	HAS(t, "3 jobs; 1 submitted");
	free(t);

	lstate_close(&st);
	tmpdir_free(d);
}

/* `hetlab queue --json`. */
static void test_state_queue_json(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char err[1024] = "";
	struct lstate st;
	if (lstate_open(&st, d, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(lstate_meta_set(&st, "epoch_unix_us", "1700000000000000", err, sizeof err), 0);
	const struct lstate_job jobs[] = {
		{ .id = 0, .name = "train-a", .cls = "training", .tenant = 2, .state = "done", .submit_us = 1000000,
		  .start_us = 1500000, .end_us = 9000000, .nodes = "h1", .attempt = 1, .reason = "", .ref = "" },
		{ .id = 1, .name = "serve", .cls = "inference", .tenant = 0, .state = "running", .submit_us = 2000000,
		  .start_us = 2500000, .end_us = -1, .nodes = "h2", .attempt = 0, .ref = "4242" },
		{ .id = 2, .cls = "batch", .tenant = 1, .state = "pending", .submit_us = 3000000, .start_us = -1,
		  .end_us = -1, .reason = "waiting" },
	};
	for (int i = 0; i < 3; i++)
		assert_int_equal(lstate_job_put(&st, &jobs[i], err, sizeof err), 0);
	/* Every field, of every job (this once crashed: a json_pack format
	 * with 'S', which jansson does not know, took the varargs out of step). */
	char *t = queue_text(&st, true, true);
	lstate_close(&st);
	json_error_t je;
	json_t *a = json_loads(t, 0, &je);
	if (!a)
		fail_msg("queue --json is not JSON: %s: %s", je.text, t);
	free(t);
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(json_object_size(json_array_get(a, i)), 12);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(a, i), "id")), (json_int_t)i);
	}
	json_t *o = json_array_get(a, 1);
	assert_int_equal(json_integer_value(json_object_get(o, "id")), 1);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "serve");
	assert_true(json_is_null(json_object_get(o, "user")));
	assert_string_equal(json_string_value(json_object_get(o, "class")), "inference");
	assert_int_equal(json_integer_value(json_object_get(o, "tenant")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "running");
	assert_true(fabs(json_number_value(json_object_get(o, "submit_unix")) - 1700000002.0) < 1e-6);
	assert_true(fabs(json_number_value(json_object_get(o, "start_unix")) - 1700000002.5) < 1e-6);
	assert_int_equal(json_integer_value(json_object_get(o, "attempt")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "nodes")), "h2");
	assert_string_equal(json_string_value(json_object_get(o, "reason")), "");
	assert_string_equal(json_string_value(json_object_get(o, "ref")), "4242");
	o = json_array_get(a, 2);
	assert_true(json_is_null(json_object_get(o, "start_unix")));
	assert_string_equal(json_string_value(json_object_get(o, "name")), "");
	assert_string_equal(json_string_value(json_object_get(o, "reason")), "waiting");
	o = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "done");
	assert_int_equal(json_integer_value(json_object_get(o, "attempt")), 1);
	json_decref(a);
	tmpdir_free(d);
}

static void test_state_queue_json_empty(void **state)
{
	(void)state;
	char *d = tmpdir_new();
	char err[1024] = "";
	struct lstate st;
	if (lstate_open(&st, d, err, sizeof err))
		fail_msg("%s", err);
	char *t = queue_text(&st, false, true);
	assert_string_equal(t, "[]\n");
	free(t);
	t = queue_text(&st, false, false);
	HAS(t, "0 jobs not finished; 0 submitted");
	free(t);
	lstate_close(&st);
	tmpdir_free(d);
	/* a file that is not a state database */
	d = tmpdir_new();
	char *p = write_in(d, "state.db", "this is not sqlite, just some text long enough to be looked at...........");
	assert_int_equal(lstate_open_ro(&st, d, err, sizeof err), -1);
	HAS(err, "not a hetlab live state database");
	free(p);
	tmpdir_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_livecfg_full),
		cmocka_unit_test(test_livecfg_defaults),
		cmocka_unit_test(test_livecfg_errors),
		cmocka_unit_test(test_reading_parse),
		cmocka_unit_test(test_reading_errors),
		cmocka_unit_test(test_reading_format),
		cmocka_unit_test(test_state_meta_inbox),
		cmocka_unit_test(test_state_rec),
		cmocka_unit_test(test_state_xref),
		cmocka_unit_test(test_state_jobs_queue),
		cmocka_unit_test(test_state_queue_json),
		cmocka_unit_test(test_state_queue_json_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
