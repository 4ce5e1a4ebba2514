/* The Prometheus endpoint (live/metrics.c, docs/metrics.md): the renderer
 * on a small two-rack cluster run a few seconds under EASY (exact totals,
 * jobs by class and state, node service state, readings with NaN left out,
 * rack power from readings or from the power model, label escaping), every
 * line of the text checked against the exposition format; a 10k-node
 * render timed; the server over a plain socket (status codes, content
 * type, body, health, the loopback rule); and the Grafana dashboard's
 * expressions checked against the families the renderer emits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "live/metrics.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/power.h"
#include "tests/testutil.h"
#include "config/scenario.h"

/* Rack r1: two 8 × H100 nodes; rack r2: a 4 × A100 node and a CPU node. */
static const char scenario_text[] =
	"{ \"name\": \"metrics\", \"sample_interval_s\": 0,\n"
	"  \"node_types\": [\n"
	"    { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"cores\": 32, \"mem_gib\": 512 },\n"
	"    { \"name\": \"a\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 4, \"cores\": 16, \"mem_gib\": 256 },\n"
	"    { \"name\": \"c\", \"cores\": 80, \"mem_gib\": 256 } ],\n"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"h\", \"count\": 2 } ] },\n"
	"             { \"name\": \"r2\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"a\", \"count\": 1 },\n"
	"                                                          { \"type\": \"c\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

static struct sim s;
static struct scenario sc;
static void *ps;
static const struct policy_ops *pol;
static char *buf;
static size_t cap;

static void load(const char *text, struct scenario *out)
{
	char err[1024];
	char *path = tu_write_tmp(".json", text);
	if (scenario_load(path, out, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
}

static void job(struct job *j, int id, double submit_s, int cls, int nodes, int gpus, int cores, uint64_t models)
{
	job_init(j, id, simtime_from_s(submit_s));
	j->cls = (uint8_t)cls;
	j->req = (struct job_req){ .nodes = nodes, .gpus = gpus, .cores = cores, .gpu_models = models };
}

/* Runs four jobs up to 10 s: inference (8 H100) and batch (10 cores) and dev
 * (4 A100) start; training (2 × 8 H100) stays pending. power: the power
 * model is on. */
static void build(bool power)
{
	load(scenario_text, &sc);
	if (power) {
		struct power_cfg pc;
		power_cfg_defaults(&pc);
		pc.enabled = true;
		assert_int_equal(power_init(&sc.cl, &pc), 0);
	}
	uint64_t h100 = 1ull << catalog_find_gpu(&sc.cl.cat, "H100-SXM-80GB");
	uint64_t a100 = 1ull << catalog_find_gpu(&sc.cl.cat, "A100-SXM-80GB");
	enum { NJ = 4 };
	struct job *jobs = calloc(NJ, sizeof *jobs);
	struct job_truth *truth = calloc(NJ, sizeof *truth);
	job(&jobs[0], 0, 0, JOB_INFERENCE, 1, 8, 8, h100);
	job(&jobs[1], 1, 1, JOB_BATCH, 1, 0, 10, 0);
	job(&jobs[2], 2, 2, JOB_DEV, 1, 4, 4, a100);
	job(&jobs[3], 3, 3, JOB_TRAINING, 2, 8, 8, h100);
	for (int i = 0; i < NJ; i++)
		truth[i].run_us = simtime_from_s(1000);
	char err[512];
	pol = policy_find("easy");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	struct policy_env env = { .cl = &sc.cl, .njobs = NJ };
	ps = NULL;
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim_cfg scfg = { .horizon_us = simtime_from_s(10) };
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, NJ), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s", s.err);
	assert_int_equal(s.jobs[3].state, JOB_PENDING);
	assert_int_equal(s.jobs[0].state, JOB_RUNNING);
}

static void done(void)
{
	pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
	memset(&s, 0, sizeof s);
	memset(&sc, 0, sizeof sc);
}

static const char *render(const struct live_reading *rd, const struct metrics_counters *c)
{
	long n = metrics_render(&buf, &cap, &s, rd, c);
	assert_true(n > 0);
	assert_int_equal(strlen(buf), (size_t)n);
	return buf;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define LINE(text, line) do { if (!has_line(text, line)) fail_msg("missing line: %s", line); } while (0)
#define NOLINE(text, line) do { if (has_line(text, line)) fail_msg("unexpected line: %s", line); } while (0)

/* The sample of a series ("name{labels}"), or NULL. */
static const char *value_of(const char *text, const char *series)
{
	static char v[64];
	size_t n = strlen(series);
	for (const char *p = text; (p = strstr(p, series)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == ' ') {
			const char *e = strchr(p + n + 1, '\n');
			snprintf(v, sizeof v, "%.*s", (int)(e - p - n - 1), p + n + 1);
			return v;
		}
	return NULL;
}

static bool name_start(int c) { return isalpha(c) || c == '_' || c == ':'; }
static bool name_char(int c) { return isalnum(c) || c == '_' || c == ':'; }

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks the whole text against the exposition format: HELP then TYPE
 * once per family, before its samples, which are contiguous; every sample
 * `name{label="value",...} value` with escapes \\ \" \n only and a number
 * (never NaN); no series twice. Returns the number of families. */
static int check_format(const char *text)
{
	enum { MAXF = 128 };
	char fam[MAXF][96];
	int nfam = 0;
	char cur[96] = "";
	bool cur_help = false, cur_type = false, cur_hist = false;
	size_t nlines = 0, nser = 0;
	for (const char *p = text; *p; p++)
		nlines += *p == '\n';
	char **series = calloc(nlines + 1, sizeof *series);
	assert_non_null(series);
	size_t len = strlen(text);
	assert_true(len > 0 && text[len - 1] == '\n');
	for (const char *line = text; *line; ) {
		const char *eol = strchr(line, '\n');
		assert_non_null(eol);
		char l[4096];
		assert_true((size_t)(eol - line) < sizeof l);
		snprintf(l, sizeof l, "%.*s", (int)(eol - line), line);
		line = eol + 1;
		if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0) {
			bool help = l[2] == 'H';
			char name[96];
			const char *q = l + 7;
			size_t k = 0;
			if (!name_start((unsigned char)*q))
				fail_msg("bad metric name: %s", l);
			while (name_char((unsigned char)*q) && k < sizeof name - 1)
				name[k++] = *q++;
			name[k] = '\0';
			if (*q != ' ')
				fail_msg("bad line: %s", l);
			if (help) {
				for (int i = 0; i < nfam; i++)
					if (strcmp(fam[i], name) == 0)
						fail_msg("family %s declared twice", name);
				assert_true(nfam < MAXF);
				snprintf(fam[nfam++], sizeof fam[0], "%s", name);
				snprintf(cur, sizeof cur, "%s", name);
				cur_help = true;
				cur_type = false;
				if (strlen(q + 1) == 0)
					fail_msg("empty HELP for %s", name);
			} else {
				if (!cur_help || strcmp(cur, name) != 0 || cur_type)
					fail_msg("TYPE without its HELP first, or twice: %s", l);
				if (strcmp(q + 1, "gauge") != 0 && strcmp(q + 1, "counter") != 0 &&
				    strcmp(q + 1, "histogram") != 0)
					fail_msg("bad type: %s", l);
				cur_type = true;
				cur_hist = strcmp(q + 1, "histogram") == 0;
			}
			continue;
		}
		if (l[0] == '#' || l[0] == '\0')
			fail_msg("unexpected line: \"%s\"", l);
		const char *q = l;
		if (!name_start((unsigned char)*q))
			fail_msg("bad sample name: %s", l);
		while (name_char((unsigned char)*q))
			q++;
		/* a histogram's samples are NAME_bucket, NAME_sum and NAME_count */
		size_t cl = strlen(cur), nl = (size_t)(q - l);
		bool hist_ok = cur_hist && nl > cl && strncmp(l, cur, cl) == 0 &&
		               ((nl - cl == 7 && strncmp(l + cl, "_bucket", 7) == 0) ||
		                (nl - cl == 4 && strncmp(l + cl, "_sum", 4) == 0) ||
		                (nl - cl == 6 && strncmp(l + cl, "_count", 6) == 0));
		if (!cur_type || (!hist_ok && (nl != cl || strncmp(l, cur, cl) != 0)))
			fail_msg("sample outside its family's block (family %s): %s", cur, l);
		if (*q == '{') {
			q++;
			for (;;) {
				if (!isalpha((unsigned char)*q) && *q != '_')
					fail_msg("bad label name: %s", l);
				while (isalnum((unsigned char)*q) || *q == '_')
					q++;
				if (q[0] != '=' || q[1] != '"')
					fail_msg("bad label: %s", l);
				q += 2;
				while (*q != '"') {
					if (*q == '\0')
						fail_msg("unterminated label value: %s", l);
					if (*q == '\\') {
						if (q[1] != '\\' && q[1] != '"' && q[1] != 'n')
							fail_msg("bad escape: %s", l);
						q++;
					}
					q++;
				}
				q++;
				if (*q == ',') {
					q++;
					continue;
				}
				if (*q != '}')
					fail_msg("bad label list: %s", l);
				q++;
				break;
			}
		}
		if (*q != ' ')
			fail_msg("no single space before the value: %s", l);
		series[nser++] = strndup(l, (size_t)(q - l));
		q++;
		if (strcasestr(q, "nan"))
			fail_msg("NaN written: %s", l);
		char *end;
		strtod(q, &end);
		if (end == q || *end != '\0')
			fail_msg("bad value: %s", l);
	}
	qsort(series, nser, sizeof *series, cmp_str);
	for (size_t i = 1; i < nser; i++)
		if (strcmp(series[i - 1], series[i]) == 0)
			fail_msg("series twice: %s", series[i]);
	for (size_t i = 0; i < nser; i++)
		free(series[i]);
	free(series);
	return nfam;
}

static void reading(struct live_reading *r, double power_w, double temp_c, double util, int errors, simtime at)
{
	*r = (struct live_reading){ .ok = true, .at_us = at, .power_w = power_w, .temp_c = temp_c,
	                            .util = util, .gpu_errors = errors };
}

static const struct metrics_counters counters = {
	.preemptions = 3, .requeues = 2, .starts = 7, .submits = 9, .cancels = 1,
	.ends = { [JOB_DONE] = 4, [JOB_FAILED] = 1, [JOB_KILLED] = 2 },
	.passes = 42, .last_pass_s = 0.0125, .started_unix = 1700000000,
};

/* Totals, jobs, node state, readings, rack figures and counters, exactly. */
static void test_render(void **state)
{
	(void)state;
	build(false);
	s.cl.svc[3] = NODE_DRAINED;
	s.cl.svc[2] = NODE_DRAINING;
	struct live_reading rd[4];
	reading(&rd[0], 1234.5, 61.25, 0.5, 2, s.now - simtime_from_s(3));
	reading(&rd[1], NAN, 55, NAN, 0, s.now);
	rd[2] = (struct live_reading){ .ok = false, .power_w = 999, .temp_c = 99, .util = 1 };
	reading(&rd[3], 300, NAN, 0.25, 0, s.now);
	const char *t = render(rd, &counters);
	if (getenv("METRICS_DUMP"))
		fputs(t, stderr);
	int nfam = check_format(t);
	int nall = 0;
	while (metrics_families[nall].name)
		nall++;
	assert_int_equal(nfam, nall);   /* every family, each once */

	LINE(t, "hetlab_up 1");
	LINE(t, "hetlab_start_time_seconds 1700000000");
	LINE(t, "hetlab_gpus_total{model=\"H100-SXM-80GB\"} 16");
	LINE(t, "hetlab_gpus_total{model=\"A100-SXM-80GB\"} 4");
	LINE(t, "hetlab_gpus_allocated{model=\"H100-SXM-80GB\"} 8");
	LINE(t, "hetlab_gpus_allocated{model=\"A100-SXM-80GB\"} 4");
	LINE(t, "hetlab_gpus_allocated_ratio 0.6");
	LINE(t, "hetlab_cores_total 160");
	LINE(t, "hetlab_cores_allocated 22");
	LINE(t, "hetlab_cores_allocated_ratio 0.1375");
	/* the per-model tally agrees with the engine's own */
	assert_int_equal(s.cl.gpus_busy, 12);

	LINE(t, "hetlab_jobs{class=\"training\",state=\"pending\"} 1");
	LINE(t, "hetlab_job_gpus{class=\"training\",state=\"pending\"} 16");
	LINE(t, "hetlab_jobs{class=\"inference\",state=\"running\"} 1");
	LINE(t, "hetlab_jobs{class=\"batch\",state=\"running\"} 1");
	LINE(t, "hetlab_jobs{class=\"dev\",state=\"running\"} 1");
	LINE(t, "hetlab_jobs{class=\"training\",state=\"running\"} 0");
	LINE(t, "hetlab_jobs{class=\"inference\",state=\"pending\"} 0");
	assert_int_equal(s.next_submit, 4);
	NOLINE(t, "hetlab_jobs{class=\"training\",state=\"done\"} 0");   /* final states are counters */

	LINE(t, "hetlab_nodes{state=\"up\"} 2");
	LINE(t, "hetlab_nodes{state=\"draining\"} 1");
	LINE(t, "hetlab_nodes{state=\"drained\"} 1");
	LINE(t, "hetlab_node_drained{node=\"r2-n2\",rack=\"r2\"} 1");
	LINE(t, "hetlab_node_drained{node=\"r1-n1\",rack=\"r1\"} 0");
	LINE(t, "hetlab_node_draining{node=\"r2-n1\",rack=\"r2\"} 1");
	LINE(t, "hetlab_node_up{node=\"r2-n2\",rack=\"r2\"} 1");

	LINE(t, "hetlab_node_power_watts{node=\"r1-n1\",rack=\"r1\"} 1234.5");
	LINE(t, "hetlab_node_temperature_celsius{node=\"r1-n1\",rack=\"r1\"} 61.25");
	LINE(t, "hetlab_node_utilization_ratio{node=\"r1-n1\",rack=\"r1\"} 0.5");
	LINE(t, "hetlab_node_gpu_errors{node=\"r1-n1\",rack=\"r1\"} 2");
	LINE(t, "hetlab_node_reading_age_seconds{node=\"r1-n1\",rack=\"r1\"} 3");
	LINE(t, "hetlab_node_temperature_celsius{node=\"r1-n2\",rack=\"r1\"} 55");
	assert_null(value_of(t, "hetlab_node_power_watts{node=\"r1-n2\",rack=\"r1\"}"));       /* NaN */
	assert_null(value_of(t, "hetlab_node_utilization_ratio{node=\"r1-n2\",rack=\"r1\"}"));
	assert_null(value_of(t, "hetlab_node_power_watts{node=\"r2-n1\",rack=\"r2\"}"));       /* no reading */
	assert_null(value_of(t, "hetlab_node_temperature_celsius{node=\"r2-n2\",rack=\"r2\"}"));
	LINE(t, "hetlab_node_utilization_ratio{node=\"r2-n2\",rack=\"r2\"} 0.25");
	assert_null(strstr(t, "999"));
	assert_null(value_of(t, "hetlab_node_gpus_unhealthy{node=\"r1-n1\",rack=\"r1\"}"));  /* faults off */

	LINE(t, "hetlab_rack_power_watts{rack=\"r1\"} 1234.5");
	LINE(t, "hetlab_rack_power_watts{rack=\"r2\"} 300");
	LINE(t, "hetlab_rack_power_cap_watts{rack=\"r1\"} 40000");
	LINE(t, "hetlab_rack_power_cap_watts{rack=\"r2\"} 20000");
	LINE(t, "hetlab_rack_warning{rack=\"r1\"} 0");
	LINE(t, "hetlab_rack_temperature_max_celsius{rack=\"r1\"} 61.25");
	assert_null(value_of(t, "hetlab_rack_temperature_max_celsius{rack=\"r2\"}"));   /* no temperature, no model */

	LINE(t, "hetlab_preemptions_total 3");
	LINE(t, "hetlab_requeues_total 2");
	LINE(t, "hetlab_job_starts_total 7");
	LINE(t, "hetlab_job_submits_total 9");
	LINE(t, "hetlab_job_cancels_total 1");
	LINE(t, "hetlab_job_ends_total{state=\"done\"} 4");
	LINE(t, "hetlab_job_ends_total{state=\"failed\"} 1");
	LINE(t, "hetlab_job_ends_total{state=\"killed\"} 2");
	NOLINE(t, "hetlab_job_ends_total{state=\"pending\"} 0");
	LINE(t, "hetlab_scheduling_passes_total 42");
	LINE(t, "hetlab_scheduling_pass_seconds 0.0125");
	LINE(t, "# TYPE hetlab_preemptions_total counter");
	LINE(t, "# TYPE hetlab_gpus_total gauge");

	/* a rack at the warning fraction of its cap; a node down; a held job */
	reading(&rd[1], 40000 * 0.9 - 1234.5, 55, 1, 0, s.now);
	s.cl.svc[1] = NODE_DOWN;
	assert_int_equal(job_set_state(&s.jobs[3], JOB_HELD), 0);
	t = render(rd, &counters);
	check_format(t);
	LINE(t, "hetlab_rack_warning{rack=\"r1\"} 1");
	LINE(t, "hetlab_rack_power_watts{rack=\"r1\"} 36000");
	LINE(t, "hetlab_node_up{node=\"r1-n2\",rack=\"r1\"} 0");
	LINE(t, "hetlab_nodes{state=\"down\"} 1");
	LINE(t, "hetlab_jobs{class=\"training\",state=\"held\"} 1");
	LINE(t, "hetlab_jobs{class=\"training\",state=\"pending\"} 0");
	/* an absent node has no per-node series */
	s.cl.svc[1] = NODE_ABSENT;
	t = render(rd, &counters);
	check_format(t);
	assert_null(value_of(t, "hetlab_node_up{node=\"r1-n2\",rack=\"r1\"}"));
	LINE(t, "hetlab_nodes{state=\"absent\"} 1");
	done();
}

/* No readings and no counters: the counter families are left out, the
 * reading families have no samples, the rest is all there. */
static void test_render_bare(void **state)
{
	(void)state;
	build(false);
	const char *t = render(NULL, NULL);
	check_format(t);
	assert_null(strstr(t, "hetlab_preemptions_total"));
	assert_null(strstr(t, "hetlab_start_time_seconds"));
	assert_null(strstr(t, "hetlab_node_power_watts{"));
	assert_null(strstr(t, "hetlab_rack_power_watts{"));
	LINE(t, "# TYPE hetlab_node_power_watts gauge");
	LINE(t, "hetlab_up 1");
	LINE(t, "hetlab_rack_warning{rack=\"r1\"} 0");
	/* a second render into the grown buffer allocates nothing */
	char *before = buf;
	size_t cap_before = cap;
	long n1 = (long)strlen(buf);
	assert_int_equal(metrics_render(&buf, &cap, &s, NULL, NULL), n1);
	assert_ptr_equal(buf, before);
	assert_int_equal(cap, cap_before);
	done();
}

/* With the power model on, racks without readings report the model's
 * power and temperature; a reading wins over the model. */
static void test_render_power_model(void **state)
{
	(void)state;
	build(true);
	const struct power_state *pw = s.cl.pw;
	assert_true(pw->rack[0].power_w > 0);
	char want[128];
	const char *t = render(NULL, &counters);
	check_format(t);
	snprintf(want, sizeof want, "hetlab_rack_power_watts{rack=\"r1\"} %.15g", pw->rack[0].power_w);
	LINE(t, want);
	double tmax = -INFINITY;
	for (int i = 2; i < 4; i++) {
		double x = power_node_temp_at(&s.cl, i, s.now);
		tmax = x > tmax ? x : tmax;
	}
	snprintf(want, sizeof want, "hetlab_rack_temperature_max_celsius{rack=\"r2\"} %.15g", tmax);
	LINE(t, want);
	snprintf(want, sizeof want, "hetlab_rack_power_cap_watts{rack=\"r1\"} %.15g", pw->rack[0].cap_w);
	LINE(t, want);
	/* the model's warning flag */
	s.cl.pw->rack[1].flags |= PW_RACK_WARN;
	struct live_reading rd[4] = { { .ok = false } };
	reading(&rd[0], 5000, 70, 1, 0, s.now);
	t = render(rd, &counters);
	LINE(t, "hetlab_rack_power_watts{rack=\"r1\"} 5000");
	LINE(t, "hetlab_rack_temperature_max_celsius{rack=\"r1\"} 70");
	LINE(t, "hetlab_rack_warning{rack=\"r2\"} 1");
	LINE(t, "hetlab_rack_warning{rack=\"r1\"} 0");
	done();
}

/* Node and rack names that carry ", \ and a newline are escaped. */
static void test_escape(void **state)
{
	(void)state;
	char out[64];
	const char in[] = "a\"b\\c\nd";
	assert_int_equal(metrics_escape_label(out, sizeof out, in, strlen(in)), 10);
	assert_string_equal(out, "a\\\"b\\\\c\\nd");
	assert_int_equal(metrics_escape_label(out, 4, in, strlen(in)), 10);   /* truncated */
	assert_string_equal(out, "a\\\"");
	build(false);
	snprintf(s.cl.nodes[0].name, sizeof s.cl.nodes[0].name, "%s", "n\"0\\x\ny");
	snprintf(s.cl.racks[0].name, sizeof s.cl.racks[0].name, "%s", "r\"1");
	snprintf(s.cl.cat.gpus[s.cl.nodes[0].gpu_model].name, HL_NAME_MAX, "%s", "H\\100");
	const char *t = render(NULL, NULL);
	check_format(t);
	LINE(t, "hetlab_node_up{node=\"n\\\"0\\\\x\\ny\",rack=\"r\\\"1\"} 1");
	LINE(t, "hetlab_rack_power_cap_watts{rack=\"r\\\"1\"} 40000");
	LINE(t, "hetlab_gpus_total{model=\"H\\\\100\"} 16");
	done();
}

/* 10 000 nodes with a reading each: one render, every node and rack in it
 * (the speed figure is bench/metrics.c's: a test asserts no time). */
static void test_render_large(void **state)
{
	(void)state;
	load("{ \"name\": \"big\", \"sample_interval_s\": 0,\n"
	     "  \"node_types\": [ { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"cores\": 112, \"mem_gib\": 2048 } ],\n"
	     "  \"racks\": [ { \"name\": \"r\", \"count\": 500, \"power_kw\": 200,\n"
	     "                \"nodes\": [ { \"type\": \"h\", \"count\": 20 } ] } ],\n"
	     "  \"workload\": { \"trace\": \"none.jsonl\" } }\n", &sc);
	assert_int_equal(sc.cl.nnodes, 10000);
	s.cl = sc.cl;   /* borrowed for the render; handed back below */
	struct live_reading *rd = calloc((size_t)s.cl.nnodes, sizeof *rd);
	for (int i = 0; i < s.cl.nnodes; i++)
		reading(&rd[i], 4000 + i % 1000, 40 + i % 30, (i % 100) / 100.0, 0, 0);
	const char *t = render(rd, &counters);
	LINE(t, "hetlab_gpus_total{model=\"H100-SXM-80GB\"} 80000");
	LINE(t, "hetlab_node_power_watts{node=\"r500-n20\",rack=\"r500\"} 4999");
	check_format(t);
	free(rd);
	sc.cl = s.cl;
	memset(&s, 0, sizeof s);
	scenario_free(&sc);
	memset(&sc, 0, sizeof sc);
}

/* ---- the server ---- */

struct resp {
	int status;
	char head[2048];
	char *body;
	size_t len;
};

/* Sends `req` (a whole HTTP/1.0 request) to 127.0.0.1:port and reads the
 * response to EOF. */
static void http(int port, const char *req, struct resp *r)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	size_t n = strlen(req);
	for (size_t off = 0; off < n; ) {
		ssize_t w = send(fd, req + off, n - off, MSG_NOSIGNAL);
		assert_true(w > 0);
		off += (size_t)w;
	}
	size_t cap2 = 65536, len = 0;
	char *all = malloc(cap2);
	for (;;) {
		if (len + 4096 > cap2)
			all = realloc(all, cap2 *= 2);
		ssize_t k = recv(fd, all + len, cap2 - len - 1, 0);
		assert_true(k >= 0);
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	all[len] = '\0';
	char *sep = strstr(all, "\r\n\r\n");
	assert_non_null(sep);
	snprintf(r->head, sizeof r->head, "%.*s", (int)(sep - all), all);
	assert_int_equal(sscanf(all, "HTTP/1.%*d %d", &r->status), 1);
	r->len = len - (size_t)(sep + 4 - all);
	r->body = malloc(r->len + 1);
	memcpy(r->body, sep + 4, r->len);
	r->body[r->len] = '\0';
	free(all);
}

static void get(int port, const char *method, const char *path, struct resp *r)
{
	char req[256];
	snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: localhost\r\n\r\n", method, path);
	http(port, req, r);
}

static void test_server(void **state)
{
	(void)state;
	struct metrics_srv *m;
	char err[256];
	if (metrics_start(&m, NULL, 0, false, err, sizeof err))
		fail_msg("%s", err);
	int port = metrics_port(m);
	assert_true(port > 0 && port < 65536);
	struct resp r;

	/* before the first publish */
	get(port, "GET", "/metrics", &r);
	assert_int_equal(r.status, 503);
	free(r.body);
	get(port, "GET", "/healthz", &r);
	assert_int_equal(r.status, 503);
	assert_string_equal(r.body, "starting\n");
	free(r.body);

	/* a large text goes through whole */
	size_t big = 300000;
	char *text = malloc(big + 1);
	for (size_t i = 0; i < big; i++)
		text[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	text[big] = '\0';
	assert_int_equal(metrics_publish(m, text, big, true, NULL), 0);
	get(port, "GET", "/metrics", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strcasestr(r.head, "\r\nContent-Type: text/plain; version=0.0.4"));
	assert_int_equal(r.len, big);
	assert_memory_equal(r.body, text, big);
	free(r.body);
	free(text);

	/* the renderer's text, as the daemon publishes it */
	build(false);
	const char *t = render(NULL, &counters);
	assert_int_equal(metrics_publish(m, t, strlen(t), true, NULL), 0);
	get(port, "GET", "/metrics", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, t);
	free(r.body);
	get(port, "HEAD", "/metrics", &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, 0);
	free(r.body);
	done();

	get(port, "GET", "/healthz", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "ok\n");
	free(r.body);
	assert_int_equal(metrics_publish(m, "hetlab_up 1\n", 12, false, "probe of node r1-n1 failed 3 times"), 0);
	get(port, "GET", "/healthz", &r);
	assert_int_equal(r.status, 503);
	assert_string_equal(r.body, "probe of node r1-n1 failed 3 times\n");
	free(r.body);
	get(port, "GET", "/metrics", &r);   /* still served while unhealthy */
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "hetlab_up 1\n");
	free(r.body);

	get(port, "GET", "/nope", &r);
	assert_int_equal(r.status, 404);
	free(r.body);
	get(port, "GET", "/metrics/", &r);
	assert_int_equal(r.status, 404);
	free(r.body);
	http(port, "POST /metrics HTTP/1.0\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello", &r);
	assert_int_equal(r.status, 405);
	assert_non_null(strcasestr(r.head, "\r\nAllow: GET"));
	free(r.body);
	get(port, "DELETE", "/healthz", &r);
	assert_int_equal(r.status, 405);
	free(r.body);

	/* the port is taken: an error naming it */
	struct metrics_srv *m2;
	assert_int_equal(metrics_start(&m2, "127.0.0.1", port, false, err, sizeof err), -1);
	assert_null(m2);
	assert_non_null(strstr(err, "cannot serve metrics on 127.0.0.1:"));
	metrics_stop(m);
	metrics_stop(NULL);
}

static void test_server_addresses(void **state)
{
	(void)state;
	struct metrics_srv *m;
	char err[256];
	assert_int_equal(metrics_start(&m, "0.0.0.0", 0, false, err, sizeof err), -1);
	assert_null(m);
	assert_non_null(strstr(err, "0.0.0.0 is not a loopback address"));
	assert_non_null(strstr(err, "allow_public"));
	assert_int_equal(metrics_start(&m, "::", 0, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a loopback address"));
	assert_int_equal(metrics_start(&m, "10.1.2.3", 0, false, err, sizeof err), -1);
	assert_int_equal(metrics_start(&m, "metrics.example.org", 0, true, err, sizeof err), -1);
	assert_non_null(strstr(err, "numeric IPv4 or IPv6"));
	assert_int_equal(metrics_start(&m, NULL, 70000, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "70000"));

	if (metrics_start(&m, "0.0.0.0", 0, true, err, sizeof err))
		fail_msg("%s", err);
	struct resp r;
	assert_int_equal(metrics_publish(m, "hetlab_up 1\n", 12, true, NULL), 0);
	get(metrics_port(m), "GET", "/metrics", &r);   /* reached through 127.0.0.1 */
	assert_int_equal(r.status, 200);
	free(r.body);
	metrics_stop(m);

	if (metrics_start(&m, "localhost", 0, false, err, sizeof err))
		fail_msg("%s", err);
	metrics_stop(m);
	if (metrics_start(&m, "127.0.0.2", 0, false, err, sizeof err))
		fail_msg("%s", err);
	metrics_stop(m);
	/* An IPv4-mapped IPv6 address is its IPv4 address: loopback when that
	 * is, and served on it (an IPv6-only socket could not bind it). */
	if (metrics_start(&m, "::ffff:127.0.0.1", 0, false, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(metrics_publish(m, "hetlab_up 1\n", 12, true, NULL), 0);
	get(metrics_port(m), "GET", "/metrics", &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	metrics_stop(m);
	assert_int_equal(metrics_start(&m, "::ffff:10.1.2.3", 0, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a loopback address"));
	/* ::1 is loopback; a host without IPv6 cannot bind it (not our error) */
	if (metrics_start(&m, "::1", 0, false, err, sizeof err) == 0)
		metrics_stop(m);
	else
		assert_null(strstr(err, "loopback"));
}

/* ---- the dashboard ---- */

static bool rendered_family(const char *text, const char *name)
{
	char h[160];
	snprintf(h, sizeof h, "# TYPE %s ", name);
	if (strstr(text, h))
		return true;
	/* a histogram's series: NAME_bucket, NAME_sum, NAME_count of "# TYPE NAME histogram" */
	static const char *const sfx[] = { "_bucket", "_sum", "_count" };
	size_t n = strlen(name);
	for (int k = 0; k < 3; k++) {
		size_t m = strlen(sfx[k]);
		if (n > m && strcmp(name + n - m, sfx[k]) == 0) {
			snprintf(h, sizeof h, "# TYPE %.*s histogram", (int)(n - m), name);
			if (strstr(text, h))
				return true;
		}
	}
	return false;
}

/* Every "expr" of every panel (and templating query) in the dashboard. */
static void walk_exprs(json_t *v, const char *text, int *nexpr, int *nref)
{
	if (json_is_object(v)) {
		const char *k;
		json_t *e;
		json_object_foreach(v, k, e) {
			if ((strcmp(k, "expr") == 0 || strcmp(k, "query") == 0) && json_is_string(e)) {
				const char *x = json_string_value(e);
				(*nexpr)++;
				for (const char *p = x; (p = strstr(p, "hetlab_")) != NULL; ) {
					if (p > x && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
						p++;
						continue;
					}
					char name[96];
					size_t n = 0;
					while ((isalnum((unsigned char)p[n]) || p[n] == '_') && n < sizeof name - 1)
						n++;
					snprintf(name, sizeof name, "%.*s", (int)n, p);
					if (!rendered_family(text, name))
						fail_msg("dashboard expression uses %s, which the renderer does not emit: %s", name, x);
					(*nref)++;
					p += n;
				}
			} else {
				walk_exprs(e, text, nexpr, nref);
			}
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			walk_exprs(e, text, nexpr, nref);
	}
}

static void test_dashboard(void **state)
{
	(void)state;
	build(true);
	struct live_reading rd[4];
	for (int i = 0; i < 4; i++)
		reading(&rd[i], 1000, 50, 0.5, 0, s.now);
	const char *t = render(rd, &counters);
	char path[4096];
	snprintf(path, sizeof path, "%s/docs/grafana/hetlab-live.json", tu_root());
	json_error_t je;
	json_t *d = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!d)
		fail_msg("%s:%d:%d: %s", path, je.line, je.column, je.text);
	/* import asks for the Prometheus datasource */
	json_t *in = json_object_get(d, "__inputs");
	assert_true(json_is_array(in) && json_array_size(in) >= 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(in, 0), "name")), "DS_PROMETHEUS");
	assert_string_equal(json_string_value(json_object_get(json_array_get(in, 0), "pluginId")), "prometheus");
	assert_true(json_integer_value(json_object_get(d, "schemaVersion")) >= 36);
	json_t *panels = json_object_get(d, "panels");
	assert_true(json_is_array(panels) && json_array_size(panels) >= 8);
	int nexpr = 0, nref = 0;
	walk_exprs(d, t, &nexpr, &nref);
	assert_true(nexpr >= 8);
	assert_true(nref >= nexpr);
	/* each panel has an id unique in the dashboard and a datasource from the input */
	size_t i;
	json_t *p;
	int ids[64] = { 0 };
	json_array_foreach(panels, i, p) {
		json_int_t id = json_integer_value(json_object_get(p, "id"));
		assert_true(id > 0 && id < 64);
		assert_int_equal(ids[id]++, 0);
		if (strcmp(json_string_value(json_object_get(p, "type")), "row") == 0)
			continue;
		json_t *ds = json_object_get(p, "datasource");
		assert_string_equal(json_string_value(json_object_get(ds, "uid")), "${DS_PROMETHEUS}");
	}
	json_decref(d);
	done();
}

/* docs/metrics.md names every family, in backquotes. */
static void test_docs(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof path, "%s/docs/metrics.md", tu_root());
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char doc[1 << 17];
	size_t n = fread(doc, 1, sizeof doc - 1, f);
	fclose(f);
	doc[n] = '\0';
	for (int i = 0; metrics_families[i].name; i++) {
		char want[128];
		snprintf(want, sizeof want, "| `%s` | %s |", metrics_families[i].name,
		         metrics_families[i].type == METRICS_COUNTER ? "counter" :
		         metrics_families[i].type == METRICS_HISTOGRAM ? "histogram" : "gauge");
		if (!strstr(doc, want))
			fail_msg("docs/metrics.md has no table row for %s", metrics_families[i].name);
	}
}

static int teardown_buf(void **state)
{
	(void)state;
	free(buf);
	buf = NULL;
	cap = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_render_bare),
		cmocka_unit_test(test_render_power_model),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_render_large),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_server_addresses),
		cmocka_unit_test(test_dashboard),
		cmocka_unit_test(test_docs),
	};
	return cmocka_run_group_tests(tests, NULL, teardown_buf);
}
