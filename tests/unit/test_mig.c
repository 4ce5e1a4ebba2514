/* mig: the MIG geometry table checked against a hand-written copy of the
 * vendor tables (docs/catalog.md "MIG geometry"), every start 0..7 of every
 * profile on every card, the placement rules, re-slicing, the count of full
 * layouts, and the loader's error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sim/mig.h"
#include "config/migcfg.h"
#include "config/scenario.h"

/* ---- the expected table, written out by hand ---- */

struct want_profile {
	const char *name;
	int compute, memory;
	double mem_gib;
	int max;
	const char *starts;   /* the valid starts as digits, e.g. "024" */
};

struct want_card {
	const char *gpu;
	struct want_profile p[8];
};

#define ONE "0123456"
static const struct want_card want[] = {
	{ "A100-PCIE-40GB", {
		{ "1g.5gb", 1, 1, 5, 7, ONE }, { "1g.5gb+me", 1, 1, 5, 1, ONE },
		{ "1g.10gb", 1, 2, 10, 4, "0246" }, { "2g.10gb", 2, 2, 10, 3, "024" },
		{ "3g.20gb", 3, 4, 20, 2, "04" }, { "4g.20gb", 4, 4, 20, 1, "0" },
		{ "7g.40gb", 7, 8, 40, 1, "0" } } },
	{ "A100-SXM-80GB", {
		{ "1g.10gb", 1, 1, 10, 7, ONE }, { "1g.10gb+me", 1, 1, 10, 1, ONE },
		{ "1g.20gb", 1, 2, 20, 4, "0246" }, { "2g.20gb", 2, 2, 20, 3, "024" },
		{ "3g.40gb", 3, 4, 40, 2, "04" }, { "4g.40gb", 4, 4, 40, 1, "0" },
		{ "7g.80gb", 7, 8, 80, 1, "0" } } },
	{ "A800-SXM-80GB", {
		{ "1g.10gb", 1, 1, 10, 7, ONE }, { "1g.10gb+me", 1, 1, 10, 1, ONE },
		{ "1g.20gb", 1, 2, 20, 4, "0246" }, { "2g.20gb", 2, 2, 20, 3, "024" },
		{ "3g.40gb", 3, 4, 40, 2, "04" }, { "4g.40gb", 4, 4, 40, 1, "0" },
		{ "7g.80gb", 7, 8, 80, 1, "0" } } },
	{ "H100-SXM-80GB", {
		{ "1g.10gb", 1, 1, 10, 7, ONE }, { "1g.10gb+me", 1, 1, 10, 1, ONE },
		{ "1g.20gb", 1, 2, 20, 4, "0246" }, { "2g.20gb", 2, 2, 20, 3, "024" },
		{ "3g.40gb", 3, 4, 40, 2, "04" }, { "4g.40gb", 4, 4, 40, 1, "0" },
		{ "7g.80gb", 7, 8, 80, 1, "0" } } },
	{ "H100-PCIE-80GB", {
		{ "1g.10gb", 1, 1, 10, 7, ONE }, { "1g.10gb+me", 1, 1, 10, 1, ONE },
		{ "1g.20gb", 1, 2, 20, 4, "0246" }, { "2g.20gb", 2, 2, 20, 3, "024" },
		{ "3g.40gb", 3, 4, 40, 2, "04" }, { "4g.40gb", 4, 4, 40, 1, "0" },
		{ "7g.80gb", 7, 8, 80, 1, "0" } } },
	{ "H20-96GB", {
		{ "1g.12gb", 1, 1, 12, 7, ONE }, { "1g.12gb+me", 1, 1, 12, 1, ONE },
		{ "1g.24gb", 1, 2, 24, 4, "0246" }, { "2g.24gb", 2, 2, 24, 3, "024" },
		{ "3g.48gb", 3, 4, 48, 2, "04" }, { "4g.48gb", 4, 4, 48, 1, "0" },
		{ "7g.96gb", 7, 8, 96, 1, "0" } } },
	{ "H200-SXM-141GB", {
		{ "1g.18gb", 1, 1, 18, 7, ONE }, { "1g.18gb+me", 1, 1, 18, 1, ONE },
		{ "1g.35gb", 1, 2, 35, 4, "0246" }, { "2g.35gb", 2, 2, 35, 3, "024" },
		{ "3g.71gb", 3, 4, 71, 2, "04" }, { "4g.71gb", 4, 4, 71, 1, "0" },
		{ "7g.141gb", 7, 8, 141, 1, "0" } } },
	{ "B200-SXM-180GB", {
		{ "1g.23gb", 1, 1, 23, 7, ONE }, { "1g.23gb+me", 1, 1, 23, 1, ONE },
		{ "1g.45gb", 1, 2, 45, 4, "0246" }, { "2g.45gb", 2, 2, 45, 3, "024" },
		{ "3g.90gb", 3, 4, 90, 2, "04" }, { "4g.90gb", 4, 4, 90, 1, "0" },
		{ "7g.180gb", 7, 8, 180, 1, "0" } } },
	{ "GB200-186GB", {
		{ "1g.23gb", 1, 1, 23, 7, ONE }, { "1g.23gb+me", 1, 1, 23, 1, ONE },
		{ "1g.47gb", 1, 2, 47, 4, "0246" }, { "2g.47gb", 2, 2, 47, 3, "024" },
		{ "3g.93gb", 3, 4, 93, 2, "04" }, { "4g.93gb", 4, 4, 93, 1, "0" },
		{ "7g.186gb", 7, 8, 186, 1, "0" } } },
};
#define NWANT (sizeof want / sizeof want[0])

static struct mig_geometry geo;

static int setup(void **st)
{
	(void)st;
	char err[512];
	if (mig_load_builtin(&geo, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static const struct mig_card *card(const char *gpu)
{
	const struct mig_card *c = mig_find_card(&geo, gpu);
	assert_non_null(c);
	return c;
}

static int prof(const struct mig_card *c, const char *name)
{
	int p = mig_find_profile(c, name);
	assert_true(p >= 0);
	return p;
}

/* The geometry covers exactly the catalog's MIG-capable GPUs. */
static void test_matches_catalog(void **st)
{
	(void)st;
	struct catalog cat;
	char err[512];
	assert_int_equal(catalog_load_builtin(&cat, err, sizeof err), 0);
	int nmig = 0;
	for (int i = 0; i < cat.ngpus; i++) {
		const struct mig_card *c = mig_find_card(&geo, cat.gpus[i].name);
		assert_true(cat.gpus[i].mig == (c != NULL));
		nmig += cat.gpus[i].mig;
	}
	for (int i = 0; i < geo.ncards; i++)
		assert_true(catalog_find_gpu(&cat, geo.cards[i].gpu) >= 0);
	assert_int_equal(nmig, geo.ncards);
	assert_int_equal(geo.ncards, (int)NWANT);
	catalog_fini(&cat);
}

/* Every card, every profile, every start 0..7 on an empty card: the
 * table's starts are accepted, every other position refused. */
static void test_table_every_start(void **st)
{
	(void)st;
	int checked = 0;
	for (size_t w = 0; w < NWANT; w++) {
		const struct mig_card *c = card(want[w].gpu);
		assert_int_equal(c->compute_slices, 7);
		assert_int_equal(c->memory_slices, 8);
		assert_true(strlen(c->source) > 40);
		int np = 0;
		for (; np < 8 && want[w].p[np].name; np++) {
			const struct want_profile *wp = &want[w].p[np];
			int p = prof(c, wp->name);
			const struct mig_profile *pr = &c->profiles[p];
			assert_int_equal(pr->compute_slices, wp->compute);
			assert_int_equal(pr->memory_slices, wp->memory);
			assert_true(pr->mem_gib == wp->mem_gib);
			assert_int_equal(pr->max_instances, wp->max);
			assert_true(pr->media_ext == (strstr(wp->name, "+me") != NULL));
			for (int s = -1; s <= 8; s++) {
				struct mig_layout l;
				mig_layout_init(&l, c, 0);
				bool valid = s >= 0 && strchr(wp->starts, '0' + s) != NULL;
				int rc = mig_can_place(&l, p, s);
				if (valid != (rc == MIG_OK))
					fail_msg("%s %s at %d: got %s", c->gpu, wp->name, s, mig_strerror(rc));
				if (!valid)
					assert_int_equal(rc, MIG_ESTART);
				/* place agrees with can_place, and occupies exactly its slices */
				int id = mig_place(&l, p, s);
				assert_int_equal(id >= 0, valid);
				if (valid) {
					for (int k = 0; k < 8; k++)
						assert_int_equal(l.owner[k] == id, k >= s && k < s + wp->memory);
					assert_int_equal(l.compute_used, wp->compute);
				}
				checked++;
			}
		}
		assert_int_equal(np, c->nprofiles);
	}
	assert_int_equal(checked, (int)NWANT * 7 * 10);
}

static void test_overlap(void **st)
{
	(void)st;
	const struct mig_card *c = card("A100-PCIE-40GB");
	struct mig_layout l;
	mig_layout_init(&l, c, 0);
	assert_true(mig_place(&l, prof(c, "3g.20gb"), 0) >= 0);
	assert_int_equal(mig_can_place(&l, prof(c, "4g.20gb"), 0), MIG_EOVERLAP);
	assert_int_equal(mig_can_place(&l, prof(c, "7g.40gb"), 0), MIG_EOVERLAP);
	assert_int_equal(mig_can_place(&l, prof(c, "2g.10gb"), 2), MIG_EOVERLAP);
	/* 3g.20gb holds 4 memory slices: slice 3 is taken though it has 3 compute */
	assert_int_equal(mig_can_place(&l, prof(c, "1g.5gb"), 3), MIG_EOVERLAP);
	assert_int_equal(mig_can_place(&l, prof(c, "1g.10gb"), 2), MIG_EOVERLAP);
	assert_int_equal(mig_can_place(&l, prof(c, "1g.5gb"), 4), MIG_OK);
	assert_int_equal(mig_can_place(&l, prof(c, "3g.20gb"), 4), MIG_OK);
	/* 4g + 3g: allowed since driver R510 */
	mig_layout_init(&l, c, 0);
	assert_true(mig_place(&l, prof(c, "4g.20gb"), 0) >= 0);
	assert_true(mig_place(&l, prof(c, "3g.20gb"), 4) >= 0);
	assert_int_equal(l.compute_used, 7);
	char buf[128];
	mig_layout_format(&l, buf, sizeof buf);
	assert_string_equal(buf, "4g.20gb@0 3g.20gb@4");
}

/* 7 compute slices against 8 memory slices. */
static void test_memory_slices(void **st)
{
	(void)st;
	const struct mig_card *c = card("H100-SXM-80GB");
	int one = prof(c, "1g.10gb"), two = prof(c, "1g.20gb"), g3 = prof(c, "3g.40gb");
	struct mig_layout l;
	mig_layout_init(&l, c, 0);
	/* 3g + 3g: one compute slice left, but no memory slice: no 1g fits */
	assert_true(mig_place(&l, g3, 0) >= 0);
	assert_true(mig_place(&l, g3, 4) >= 0);
	assert_int_equal(l.compute_used, 6);
	assert_int_equal(mig_first_fit(&l, one), -1);
	for (int s = 0; s < 7; s++)
		assert_int_equal(mig_can_place(&l, one, s), MIG_EOVERLAP);
	/* seven 1g: all compute used, memory slice 7 free but unusable */
	mig_layout_init(&l, c, 0);
	for (int s = 0; s < 7; s++)
		assert_int_equal(mig_place(&l, one, s), s);
	assert_int_equal(l.owner[7], -1);
	assert_int_equal(l.compute_used, 7);
	assert_int_equal(mig_can_place(&l, one, 7), MIG_ESTART);
	assert_int_equal(mig_can_place(&l, two, 6), MIG_EOVERLAP);
	/* four 1g.20gb fill all 8 memory slices with 4 compute slices */
	mig_layout_init(&l, c, 0);
	for (int s = 0; s < 8; s += 2)
		assert_true(mig_place(&l, two, s) >= 0);
	assert_int_equal(l.compute_used, 4);
	assert_int_equal(mig_first_fit(&l, one), -1);
}

/* The compute rule, on a hand-built card where it binds: 2 compute slices,
 * 4 memory slices, a 1-slice profile at any start. */
static void test_compute_limit(void **st)
{
	(void)st;
	struct mig_card c;
	memset(&c, 0, sizeof c);
	snprintf(c.gpu, sizeof c.gpu, "toy");
	c.compute_slices = 2;
	c.memory_slices = 4;
	c.nprofiles = 1;
	c.profiles[0] = (struct mig_profile){ .name = "1g", .compute_slices = 1, .memory_slices = 1,
		.mem_gib = 1, .max_instances = 4, .start_mask = 0xf };
	struct mig_layout l;
	mig_layout_init(&l, &c, 0);
	assert_true(mig_place(&l, 0, 0) >= 0);
	assert_true(mig_place(&l, 0, 1) >= 0);
	assert_int_equal(mig_can_place(&l, 0, 2), MIG_ECOMPUTE);
	assert_int_equal(mig_first_fit(&l, 0), -1);
	assert_int_equal(mig_enumerate(&c, true, NULL, NULL), 6);   /* C(4,2) */
}

static void test_max_instances(void **st)
{
	(void)st;
	const struct mig_card *c = card("A100-PCIE-40GB");
	int me = prof(c, "1g.5gb+me"), one = prof(c, "1g.5gb"), g3 = prof(c, "3g.20gb");
	struct mig_layout l;
	mig_layout_init(&l, c, 0);
	assert_true(mig_place(&l, me, 0) >= 0);
	assert_int_equal(mig_can_place(&l, me, 1), MIG_EMAX);
	assert_int_equal(mig_first_fit(&l, me), -1);
	assert_int_equal(mig_can_place(&l, one, 1), MIG_OK);
	mig_layout_init(&l, c, 0);
	assert_true(mig_place(&l, g3, 0) >= 0);
	assert_true(mig_place(&l, g3, 4) >= 0);
	assert_int_equal(mig_can_place(&l, g3, 0), MIG_EMAX);
	assert_int_equal(mig_can_place(&l, -1, 0), MIG_EPROFILE);
	assert_int_equal(mig_can_place(&l, c->nprofiles, 0), MIG_EPROFILE);
}

static void test_remove_place_again(void **st)
{
	(void)st;
	const struct mig_card *c = card("H200-SXM-141GB");
	int g2 = prof(c, "2g.35gb"), g4 = prof(c, "4g.71gb");
	struct mig_layout l;
	mig_layout_init(&l, c, 0);
	int a = mig_place(&l, g2, 0), b = mig_place(&l, g2, 2);
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(mig_first_fit(&l, g4), -1);
	assert_int_equal(mig_first_fit(&l, g2), 4);
	assert_int_equal(mig_set_busy(&l, a, true), MIG_OK);
	assert_false(mig_idle(&l));
	assert_int_equal(mig_remove(&l, a), MIG_EBUSY);
	assert_int_equal(mig_set_busy(&l, a, false), MIG_OK);
	assert_true(mig_idle(&l));
	assert_int_equal(mig_remove(&l, a), MIG_OK);
	assert_int_equal(mig_remove(&l, a), MIG_ENOENT);
	assert_int_equal(mig_remove(&l, 99), MIG_ENOENT);
	assert_int_equal(mig_set_busy(&l, a, true), MIG_ENOENT);
	assert_int_equal(mig_first_fit(&l, g2), 0);
	assert_int_equal(mig_remove(&l, b), MIG_OK);
	assert_int_equal(l.ninst, 0);
	assert_int_equal(l.compute_used, 0);
	for (int s = 0; s < 8; s++)
		assert_int_equal(l.owner[s], -1);
	assert_int_equal(mig_first_fit(&l, g4), 0);
	assert_true(mig_place(&l, g4, 0) >= 0);
}

static void test_reslice(void **st)
{
	(void)st;
	const struct mig_card *c = card("A100-SXM-80GB");
	int g1 = prof(c, "1g.10gb"), g1d = prof(c, "1g.20gb"), g2 = prof(c, "2g.20gb"),
	    g3 = prof(c, "3g.40gb"), g4 = prof(c, "4g.40gb"), g7 = prof(c, "7g.80gb");
	const simtime cost = 42 * SIMTIME_SEC;
	struct mig_layout l, before;
	mig_layout_init(&l, c, cost);
	int id = mig_place(&l, g7, 0);
	assert_int_equal(mig_set_busy(&l, id, true), MIG_OK);
	before = l;
	simtime got = -1;
	const int half[] = { g3, g4 };     /* 3g given first: 4g must still get start 0 */
	assert_int_equal(mig_reslice(&l, half, 2, &got), MIG_EBUSY);
	assert_int_equal(got, -1);
	assert_memory_equal(&l, &before, sizeof l);
	mig_set_busy(&l, id, false);
	assert_int_equal(mig_reslice(&l, half, 2, &got), MIG_OK);
	assert_int_equal(got, cost);
	char buf[128];
	mig_layout_format(&l, buf, sizeof buf);
	assert_string_equal(buf, "4g.40gb@0 3g.40gb@4");
	/* sets that cannot fit, and bad indices, leave the layout alone */
	before = l;
	const int two4[] = { g4, g4 }, g7g1[] = { g7, g1 }, bad[] = { g1, 99 };
	const int eight[] = { g1, g1, g1, g1, g1, g1, g1, g1 };
	assert_int_equal(mig_reslice(&l, two4, 2, &got), MIG_ENOFIT);
	assert_int_equal(mig_reslice(&l, g7g1, 2, &got), MIG_ENOFIT);
	assert_int_equal(mig_reslice(&l, eight, 8, &got), MIG_ENOFIT);
	assert_int_equal(mig_reslice(&l, bad, 2, &got), MIG_EPROFILE);
	assert_memory_equal(&l, &before, sizeof l);
	/* a set that needs a smart order: 1g.20gb must go last, at 6 */
	const int mix[] = { g1d, g2, g2, g2 };
	assert_int_equal(mig_reslice(&l, mix, 4, NULL), MIG_OK);
	mig_layout_format(&l, buf, sizeof buf);
	assert_string_equal(buf, "2g.20gb@0 2g.20gb@2 2g.20gb@4 1g.20gb@6");
	assert_int_equal(mig_reslice(&l, NULL, 0, &got), MIG_OK);
	assert_int_equal(l.ninst, 0);
	assert_int_equal(got, cost);
}

/* ---- full layouts ---- */

struct seen {
	char text[128][96];
	int n;
	bool with_me;
};

static int record(const struct mig_layout *l, void *ctx)
{
	struct seen *s = ctx;
	assert_true(s->n < 128);
	mig_layout_format(l, s->text[s->n], sizeof s->text[s->n]);
	for (int i = 0; i < s->n; i++)
		assert_string_not_equal(s->text[i], s->text[s->n]);
	/* maximal: nothing usable can be added */
	for (int p = 0; p < l->card->nprofiles; p++)
		if (s->with_me || !l->card->profiles[p].media_ext)
			assert_int_equal(mig_first_fit(l, p), -1);
	s->n++;
	return 0;
}

static int stop_at_five(const struct mig_layout *l, void *ctx)
{
	(void)l;
	return ++*(int *)ctx == 5;
}

/* The count of full layouts, derived by hand in docs/catalog.md: the left
 * half (slices 0-3) is 4g, 3g, or two quarters each holding 2g, the
 * 2-slice 1g, or two 1g (3 x 3 = 9): 11 ways; the right half is 3g or
 * quarter 4-5 (3 ways) times quarter 6-7 (2-slice 1g, or 1g at 6 with slice
 * 7 unusable: 2 ways): 7 ways; 11 x 7 + the 7g alone = 78. With the +me
 * variant, any one 1g.5gb may be the +me one: 78 + 161 = 239. */
static void test_enumerate(void **st)
{
	(void)st;
	static struct seen s;
	memset(&s, 0, sizeof s);
	const struct mig_card *c = card("A100-PCIE-40GB");
	assert_int_equal(mig_enumerate(c, false, record, &s), 78);
	assert_int_equal(s.n, 78);
	assert_string_equal(s.text[0], "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6");
	assert_int_equal(mig_enumerate(c, true, NULL, NULL), 239);
	/* the other cards share the geometry */
	for (size_t w = 0; w < NWANT; w++) {
		assert_int_equal(mig_enumerate(card(want[w].gpu), false, NULL, NULL), 78);
		assert_int_equal(mig_enumerate(card(want[w].gpu), true, NULL, NULL), 239);
	}
	int calls = 0;
	assert_int_equal(mig_enumerate(c, false, stop_at_five, &calls), 5);
	assert_int_equal(calls, 5);
}

/* ---- loader errors: file, JSON path, what was expected ---- */

static void expect_error(const char *text, const char *want_msg)
{
	struct mig_geometry g;
	char err[512] = "";
	assert_int_equal(mig_load_text(&g, text, "t.json", err, sizeof err), -1);
	if (!strstr(err, want_msg))
		fail_msg("error \"%s\" lacks \"%s\"", err, want_msg);
	assert_int_equal(g.ncards, 0);
}

#define CARD(profiles) "{\"cards\": [{\"gpu\": \"X\", \"compute_slices\": 7, \"memory_slices\": 8, " \
	"\"source\": \"s\", \"profiles\": [" profiles "]}]}"
#define G3 "{\"name\": \"3g\", \"compute_slices\": 3, \"memory_slices\": 4, \"mem_gib\": 20, \"max_instances\": 2, "

static void test_load_errors(void **st)
{
	(void)st;
	struct mig_geometry g;
	char err[512];
	assert_int_equal(mig_load_text(&g, CARD(G3 "\"starts\": [0, 4]}"), "t.json", err, sizeof err), 0);
	assert_int_equal(g.ncards, 1);
	assert_int_equal(g.cards[0].profiles[0].start_mask, 0x11);
	expect_error("{\"cards\": [", "t.json:1:");
	expect_error("{\"cards\": [], \"extra\": 1}", "t.json: $: unknown key \"extra\"");
	expect_error("{}", "t.json: $: missing key \"cards\"");
	expect_error(CARD(G3 "\"starts\": [0, 5]}"),
	             "t.json: $.cards[0].profiles[0].starts[1]: expected an integer in [0, 4]");
	expect_error(CARD(G3 "\"starts\": [4, 0]}"), "$.cards[0].profiles[0].starts[1]: starts must increase");
	expect_error(CARD(G3 "\"starts\": []}"), "$.cards[0].profiles[0].starts: expected a non-empty array");
	expect_error(CARD(G3 "\"starts\": [0]}"), "$.cards[0].profiles[0].max_instances: expected an integer in [1, 1]");
	expect_error(CARD(G3 "\"starts\": [0, 4], \"media_ext\": 1}"), "$.cards[0].profiles[0].media_ext: expected true or false");
	expect_error(CARD(G3 "\"starts\": [0, 4]}, " G3 "\"starts\": [0, 4]}"),
	             "$.cards[0].profiles[1]: profile \"3g\" listed twice");
	expect_error(CARD("{\"name\": \"9g\", \"compute_slices\": 9, \"memory_slices\": 4, \"mem_gib\": 1, "
	                  "\"max_instances\": 1, \"starts\": [0]}"),
	             "$.cards[0].profiles[0].compute_slices: expected an integer in [1, 7], got 9");
	expect_error(CARD("{\"name\": \"1g\", \"compute_slices\": 1, \"memory_slices\": 1, \"mem_gib\": \"5\", "
	                  "\"max_instances\": 1, \"starts\": [0]}"),
	             "$.cards[0].profiles[0].mem_gib: expected a number > 0 (GiB), got a string");
	expect_error("{\"cards\": [{\"gpu\": \"X\", \"compute_slices\": 7, \"memory_slices\": 8, \"profiles\": []}]}",
	             "$.cards[0]: missing key \"source\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_catalog),
		cmocka_unit_test(test_table_every_start),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_memory_slices),
		cmocka_unit_test(test_compute_limit),
		cmocka_unit_test(test_max_instances),
		cmocka_unit_test(test_remove_place_again),
		cmocka_unit_test(test_reslice),
		cmocka_unit_test(test_enumerate),
		cmocka_unit_test(test_load_errors),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
