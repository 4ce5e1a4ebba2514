/* sacctmgr dumps (config/sacctmgr.c): the local cluster's real `show qos`,
 * `show assoc` and `show event` of tests/data/slurm/ (SOURCE.md) into the
 * "slurm" block's entries, the default column sets, and the errors, each
 * naming file, line and column. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sacctmgr.h"
#include "tests/testutil.h"

#define DATA "tests/data/slurm/"

static bool has(const struct slurm_msgs *m, const char *text)
{
	for (int32_t i = 0; i < m->n; i++)
		if (strstr(m->v[i], text))
			return true;
	return false;
}

static const json_t *named(const json_t *arr, const char *name, const char *account)
{
	size_t i;
	const json_t *e;
	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")), name) &&
		    (!account || !strcmp(json_string_value(json_object_get(e, "account")), account)))
			return e;
	return NULL;
}

/* The entry as compact JSON, for comparisons. */
static void expect_json(const json_t *e, const char *want)
{
	assert_non_null(e);
	char *s = json_dumps(e, JSON_COMPACT);
	if (strcmp(s, want))
		fail_msg("got %s, expected %s", s, want);
	free(s);
}

static void test_qos(void **st)
{
	(void)st;
	json_t *qos = json_array();
	struct slurm_msgs w = { 0 };
	char err[512];
	assert_int_equal(sacctmgr_read_qos(DATA "qos.txt", qos, &w, err, sizeof err), 0);
	assert_int_equal(json_array_size(qos), 5);
	expect_json(named(qos, "normal", NULL), "{\"name\":\"normal\",\"priority\":10}");
	expect_json(named(qos, "hi", NULL), "{\"name\":\"hi\",\"priority\":100,\"preempt_mode\":\"cancel\",\"preempt\":[\"low\"]}");
	expect_json(named(qos, "urgent", NULL),
	            "{\"name\":\"urgent\",\"priority\":1000,\"grace_s\":120,\"preempt_exempt_s\":300,\"limits\":"
	            "{\"grp_tres\":{\"cpu\":16},\"grp_jobs\":20,\"max_tres_per_user\":{\"cpu\":8,\"gpu\":2},\"max_jobs\":4,"
	            "\"max_submit\":10,\"max_tres_per_job\":{\"node\":2},\"max_wall_s\":86400},\"preempt_mode\":\"requeue\","
	            "\"usage_factor\":2.0,\"flags\":[\"DenyOnLimit\",\"NoReserve\"],\"preempt\":[\"low\",\"normal\"]}");
	expect_json(named(qos, "part-second", NULL),
	            "{\"name\":\"part-second\",\"limits\":{\"max_tres_per_user\":{\"cpu\":12}},\"flags\":[\"OverPartQOS\"]}");
	assert_int_equal(w.n, 0);
	/* sacctmgr's default columns: the unmodelled ones warn only when set */
	json_t *q2 = json_array();
	assert_int_equal(sacctmgr_read_qos(DATA "qos-default.txt", q2, &w, err, sizeof err), 0);
	assert_true(json_equal(qos, q2));
	assert_int_equal(w.n, 0);
	json_decref(q2);
	json_decref(qos);
	slurm_msgs_free(&w);
}

static void test_assoc(void **st)
{
	(void)st;
	json_t *qos = json_array(), *acc = json_array(), *users = json_array();
	struct slurm_msgs w = { 0 };
	char err[512];
	assert_int_equal(sacctmgr_read_qos(DATA "qos.txt", qos, &w, err, sizeof err), 0);
	assert_int_equal(sacctmgr_read_assoc(DATA "assoc.txt", "hetlab", qos, true, acc, users, &w, err, sizeof err), 0);
	assert_int_equal(json_array_size(acc), 10);  /* root, eng, ops, proj-a, science, bio, physics, t0-t2 */
	expect_json(named(acc, "root", NULL), "{\"name\":\"root\"}");
	expect_json(named(acc, "ops", NULL), "{\"name\":\"ops\",\"parent\":\"root\",\"shares\":\"parent\"}");
	expect_json(named(acc, "bio", NULL), "{\"name\":\"bio\",\"parent\":\"science\",\"shares\":20,\"limits\":"
	            "{\"grp_tres\":{\"cpu\":12,\"mem_mib\":20480},\"grp_jobs\":6}}");
	expect_json(named(acc, "eng", NULL), "{\"name\":\"eng\",\"parent\":\"root\",\"shares\":30,\"limits\":{\"max_wall_s\":43200}}");
	expect_json(named(users, "carol", "eng"), "{\"name\":\"carol\",\"account\":\"eng\",\"priority\":10,\"limits\":"
	            "{\"max_jobs\":2,\"max_submit\":5,\"max_tres_per_job\":{\"cpu\":4,\"gpu\":1},\"max_wall_s\":43200}}");
	/* alice's association for partition second (line 20) is left out: the
	 * one for every partition (line 21) is kept */
	expect_json(named(users, "alice", "physics"),
	            "{\"name\":\"alice\",\"account\":\"physics\",\"shares\":10,\"default_qos\":\"normal\"}");
	assert_true(has(&w, "assoc.txt:20: Partition=second: user alice's association under physics for one "
	                "partition is left out"));
	assert_int_equal(w.n, 1);
	assert_int_equal(json_array_size(users), 26);
	/* another cluster's rows are left out */
	json_t *a2 = json_array(), *u2 = json_array();
	assert_int_equal(sacctmgr_read_assoc(DATA "assoc.txt", "other", qos, true, a2, u2, &w, err, sizeof err), 0);
	assert_int_equal(json_array_size(a2) + json_array_size(u2), 0);
	assert_true(has(&w, "37 rows of clusters other than other left out"));
	json_decref(a2);
	json_decref(u2);
	json_decref(qos);
	json_decref(acc);
	json_decref(users);
	slurm_msgs_free(&w);
}

/* sacctmgr's default assoc columns (no ParentName, "Def QOS") and no QOS dump. */
static void test_assoc_default(void **st)
{
	(void)st;
	json_t *qos = json_array(), *acc = json_array(), *users = json_array();
	struct slurm_msgs w = { 0 };
	char err[512];
	assert_int_equal(sacctmgr_read_assoc(DATA "assoc-default.txt", NULL, qos, false, acc, users, &w, err,
	                                     sizeof err), 0);
	assert_true(has(&w, "assoc-default.txt:1: ParentName is not a column: every account is taken as a child of root"));
	assert_true(has(&w, "DefaultQOS 'normal': no QOS dump was given"));
	expect_json(qos, "[{\"name\":\"normal\"}]");
	expect_json(named(acc, "physics", NULL), "{\"name\":\"physics\",\"shares\":40}");
	json_decref(qos);
	json_decref(acc);
	json_decref(users);
	slurm_msgs_free(&w);
}

static void test_events(void **st)
{
	(void)st;
	struct sm_events ev = { 0 };
	struct slurm_msgs w = { 0 };
	char err[512];
	assert_int_equal(sacctmgr_read_events(DATA "events.txt", "hetlab", &ev, &w, err, sizeof err), 0);
	assert_int_equal(ev.n, 3);                   /* the cluster's own row is left out */
	assert_string_equal(ev.v[0].node, "n4");
	assert_true(ev.v[0].end == -1 && !ev.v[0].drain);   /* still down at the dump */
	assert_string_equal(ev.v[1].node, "n5");
	assert_true(ev.v[1].end - ev.v[1].start == 15);
	assert_string_equal(ev.v[1].reason, "psu swap");
	assert_true(ev.v[2].drain);
	assert_int_equal(ev.v[2].line, 5);
	sm_events_free(&ev);
	/* a host list is one event a node */
	char *p = tu_write_tmp(".txt", "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
	                       "c|g[1-3]|2026-01-01T00:00:00|2026-01-01T01:00:00|DOWN*|x|root(0)\n"
	                       "c|g4|2026-01-01T00:00:00|Unknown|MAINT|x|root(0)\n");
	assert_int_equal(sacctmgr_read_events(p, NULL, &ev, &w, err, sizeof err), 0);
	assert_int_equal(ev.n, 3);
	assert_string_equal(ev.v[2].node, "g3");
	assert_true(ev.v[2].start == 1767225600);
	assert_true(has(&w, ":3: State MAINT is neither DOWN nor DRAIN"));
	sm_events_free(&ev);
	free(p);
	slurm_msgs_free(&w);
}

enum kind { QOS, ASSOC, EVENTS };

static void expect_error(enum kind k, const char *text, const char *msg)
{
	char *p = tu_write_tmp(".txt", text), err[512] = "";
	json_t *qos = json_pack("[{s:s}]", "name", "normal"), *a = json_array(), *u = json_array();
	struct sm_events ev = { 0 };
	struct slurm_msgs w = { 0 };
	int rc = k == QOS ? sacctmgr_read_qos(p, qos, &w, err, sizeof err)
	         : k == ASSOC ? sacctmgr_read_assoc(p, NULL, qos, true, a, u, &w, err, sizeof err)
	         : sacctmgr_read_events(p, NULL, &ev, &w, err, sizeof err);
	assert_int_equal(rc, -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
	assert_non_null(strstr(err, p));
	sm_events_free(&ev);
	slurm_msgs_free(&w);
	json_decref(qos);
	json_decref(a);
	json_decref(u);
	free(p);
}

static void test_errors(void **st)
{
	(void)st;
	expect_error(QOS, "Name|Priority|GrpTRES\nq|1|cpu=lots\n",
	             ":2: GrpTRES: expected TRES=COUNT pairs (cpu=64,mem=100G,gres/gpu=4,node=2), got 'cpu=lots'");
	expect_error(QOS, "Name|Priority\nq|high\n", ":2: Priority: expected an integer in [0, 4294967294], got 'high'");
	expect_error(QOS, "Name|MaxWall\nq|forever\n", ":2: MaxWall: expected a time");
	expect_error(QOS, "Name|Preempt\nq|ghost\n", "Preempt: QOS 'q' preempts 'ghost', which the dump does not list");
	expect_error(QOS, "Priority|Preempt\n1|\n", ":1: the header has no Name column");
	expect_error(QOS, "Name|Priority\nq|1|2\n", ":2: expected 2 '|'-separated fields as in the header, got 3");
	expect_error(QOS, "Name|Priority\nnormal|1\n", ":2: Name: expected a QOS not listed before, got 'normal'");
	expect_error(QOS, "", "empty (expected a `sacctmgr -P` dump with its header)");
	expect_error(QOS, "just text\n", ":1: expected a `sacctmgr -P` header");
	expect_error(ASSOC, "Cluster|Account|User|Share|Def QOS\nc|a|||\nc|a|u|1|gold\n",
	             ":3: DefaultQOS: expected a QOS of the QOS dump, got 'gold'");
	expect_error(ASSOC, "Account|User|Share\na|u|many\n", ":2: Share: expected an integer in [0, 4294967294], got 'many'");
	expect_error(ASSOC, "Account|User|ParentName\na||nowhere\n", "ParentName: account 'a' has parent 'nowhere'");
	expect_error(ASSOC, "Account|User\nb|u\n", "Account: user 'u' is under account 'b', which the dump does not list");
	expect_error(ASSOC, "Account|User\na||\na||\n", ":3: Account: expected an account not listed before, got 'a'");
	expect_error(ASSOC, "Account|User\na||\na|u\na|u\n", ":4: User: expected one association of a user under an "
	             "account, got 'u'");
	expect_error(ASSOC, "User|Share\nu|1\n", ":1: the header has no Account column");
	expect_error(EVENTS, "NodeName|TimeStart|State\nn1|yesterday|DOWN\n",
	             ":2: TimeStart: expected a time YYYY-MM-DDTHH:MM:SS, got 'yesterday'");
	expect_error(EVENTS, "NodeName|TimeStart|State\nn[1-|2026-01-01T00:00:00|DOWN\n",
	             ":2: NodeName: expected a '[' without its ']' in host list 'n[1-', got 'n[1-'");
	expect_error(EVENTS, "Node|Start\n", ":1: the header needs NodeName, TimeStart and State");
	char err[256];
	json_t *q = json_array();
	struct slurm_msgs w = { 0 };
	assert_int_equal(sacctmgr_read_qos("/nonexistent/qos.txt", q, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/qos.txt"));
	json_decref(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qos),
		cmocka_unit_test(test_assoc),
		cmocka_unit_test(test_assoc_default),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
