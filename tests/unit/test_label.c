/* label: the expression parser (successes, and errors checked for their
 * column and wording), the limits, matching semantics (equality, sets,
 * != / notin on lists and missing keys, numeric against string values,
 * exists / !exists), sel_score, the store (override order, labels_grow),
 * and cluster_label_nodes on a small hand-built cluster. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/mig.h"

/* ---- parsing ------------------------------------------------------------ */

static const struct { const char *text; int nterms; } parse_ok[] = {
	{ "", 0 },
	{ "  \t\n ", 0 },
	{ "a", 1 },
	{ "h100 | h200", 2 },
	{ "a = 1, rdma|b", 3 },
	{ "!a", 1 },
	{ "! a", 1 },
	{ "a=b", 1 },
	{ "a == b", 1 },
	{ "a!=b", 1 },
	{ "a in (x)", 1 },
	{ "a in(x,y)", 1 },
	{ "a notin ( x , y ,z )", 1 },
	{ "a>=1", 1 },
	{ "a > -1.5", 1 },
	{ "a<=1e3", 1 },
	{ "a < \"2\"", 1 },
	{ "a = \"hello, world\"", 1 },
	{ "a = \"\"", 1 },
	{ "a = \"say \\\"hi\\\"\"", 1 },
	{ "  a  =  b  ,  c  ", 2 },
	{ "gpu.mem_gib >= 80, net.kind = ib", 2 },
	{ "gpu.model in (H100-SXM-80GB, H200-SXM-141GB)", 1 },
	{ "!site.maintenance, cooling = liquid", 2 },
	{ "topology.kubernetes.io/zone = us-east-1a", 1 },
	{ "cpu.model = Xeon-8480+, t = 12:30", 2 },
	{ "in = notin, notin in (in)", 2 },
};

static void test_parse_ok(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parse_ok / sizeof parse_ok[0]; i++) {
		char err[256];
		struct selector *S = sel_compile(parse_ok[i].text, err, sizeof err);
		if (!S)
			fail_msg("\"%s\": %s", parse_ok[i].text, err);
		assert_int_equal(sel_nterms(S), parse_ok[i].nterms);
		sel_free(S);
	}
}

/* Each error, with the whole expected message: the column is 1-based. */
static const struct { const char *text; const char *msg; } parse_err[] = {
	{ ",", "column 1: expected a key, got \",\"" },
	{ "a,", "column 3: expected a key after \",\", got the end" },
	{ "a, ", "column 4: expected a key after \",\", got the end" },
	{ "a,,b", "column 3: expected a key after \",\", got \",\"" },
	{ "a b", "column 3: expected an operator (=, ==, !=, in, notin, >=, >, <=, <) or \",\" after \"a\", got \"b\"" },
	{ "a ! b", "column 3: expected an operator (=, ==, !=, in, notin, >=, >, <=, <) or \",\" after \"a\", got \"!\"" },
	{ "a inside (x)", "column 3: expected an operator (=, ==, !=, in, notin, >=, >, <=, <) or \",\" after \"a\", got \"inside\"" },
	{ "a =", "column 4: expected a value after \"=\", got the end" },
	{ "a = (b)", "column 5: expected a value after \"=\", got \"(\"" },
	{ "gpu.model in ()", "column 15: expected a value after \"in (\", got \")\"" },
	{ "x notin (  )", "column 12: expected a value after \"notin (\", got \")\"" },
	{ "a in x", "column 6: expected \"(\" after \"in\", got \"x\"" },
	{ "a in (x", "column 8: expected \",\" or \")\" in a set, got the end" },
	{ "a in (x y)", "column 9: expected \",\" or \")\" in a set, got \"y\"" },
	{ "a in (x,)", "column 9: expected a value after \",\", got \")\"" },
	{ "a >= abc", "column 6: expected a number after \">=\", got \"abc\"" },
	{ "a < ", "column 5: expected a number after \"<\", got the end" },
	{ "a > \"x\"", "column 5: expected a number after \">\", got \"x\"" },
	{ "a >= 1 2", "column 8: expected \",\" between terms or \"|\" between alternatives, got \"2\"" },
	{ "a = \"abc", "column 5: unterminated string (no closing '\"')" },
	{ "a = b c", "column 7: expected \",\" between terms or \"|\" between alternatives, got \"c\"" },
	{ "a = b)", "column 6: expected \",\" between terms or \"|\" between alternatives, got \")\"" },
	{ "!a = b", "column 4: expected \",\" between terms or \"|\" between alternatives, got \"=\"" },
	{ "!", "column 2: expected a key after \"!\", got the end" },
	{ "! = x", "column 3: expected a key after \"!\", got \"=\"" },
	{ "a = \x01", "column 5: expected a value after \"=\", got byte \\x01" },
	{ "a = b, \"c\"", "column 8: expected a key after \",\", got \"c\"" },
};

static void test_parse_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parse_err / sizeof parse_err[0]; i++) {
		char err[256] = "";
		struct selector *S = sel_compile(parse_err[i].text, err, sizeof err);
		if (S)
			fail_msg("\"%s\" compiled", parse_err[i].text);
		if (strcmp(err, parse_err[i].msg) != 0)
			fail_msg("\"%s\":\n got  %s\n want %s", parse_err[i].text, err, parse_err[i].msg);
	}
	/* A small or absent error buffer is never overrun. */
	char tiny[8];
	assert_null(sel_compile("a in ()", tiny, sizeof tiny));
	assert_int_equal(strlen(tiny), sizeof tiny - 1);
	assert_null(sel_compile("a in ()", NULL, 0));
}

static char *repeat(const char *unit, int n, const char *sep)
{
	size_t len = (strlen(unit) + strlen(sep)) * (size_t)n + 1;
	char *s = malloc(len);
	assert_non_null(s);
	s[0] = 0;
	for (int i = 0; i < n; i++) {
		strcat(s, i ? sep : "");
		strcat(s, unit);
	}
	return s;
}

static void expect_error(const char *text, const char *want)
{
	char err[256] = "";
	struct selector *S = sel_compile(text, err, sizeof err);
	if (S)
		fail_msg("expression of %zu bytes compiled", strlen(text));
	if (!strstr(err, want))
		fail_msg("got \"%s\", want \"%s\"", err, want);
}

static void expect_terms(const char *text, int n)
{
	char err[256] = "";
	struct selector *S = sel_compile(text, err, sizeof err);
	if (!S)
		fail_msg("%s", err);
	assert_int_equal(sel_nterms(S), n);
	sel_free(S);
}

static void test_limits(void **state)
{
	(void)state;
	char *s = repeat("k", 64, ", ");
	expect_terms(s, 64);
	free(s);
	s = repeat("k", 65, ", ");
	expect_error(s, "column 193: more than 64 terms");
	free(s);

	char *set = repeat("v", 64, ",");
	char *text = malloc(strlen(set) + 16);
	sprintf(text, "k in (%s)", set);
	expect_terms(text, 1);
	free(text);
	free(set);
	set = repeat("v", 65, ",");
	text = malloc(strlen(set) + 16);
	sprintf(text, "k notin (%s)", set);
	expect_error(text, "column 138: more than 64 values in the set of \"k\"");
	free(text);
	free(set);

	char val[300], buf[400];
	memset(val, 'x', 256);
	val[256] = 0;
	snprintf(buf, sizeof buf, "k = %s", val);
	expect_terms(buf, 1);
	snprintf(buf, sizeof buf, "k = \"%s\"", val);
	expect_terms(buf, 1);
	strcat(val, "x");
	snprintf(buf, sizeof buf, "k = %s", val);
	expect_error(buf, "column 5: value is longer than 256 characters");
	snprintf(buf, sizeof buf, "k in (a, \"%s\")", val);
	expect_error(buf, "column 10: value is longer than 256 characters");

	char key[200];
	memset(key, 'k', 128);
	key[128] = 0;
	expect_terms(key, 1);
	assert_true(labels_key_valid(key));
	strcat(key, "k");
	expect_error(key, "column 1: key is longer than 128 characters");
	assert_false(labels_key_valid(key));

	/* A long run of blanks is only whitespace. */
	char *blanks = malloc(100001);
	memset(blanks, ' ', 100000);
	blanks[100000] = 0;
	expect_terms(blanks, 0);
	free(blanks);
}

/* ---- matching ----------------------------------------------------------- */

/* Three nodes: node 2 has no labels at all. */
static struct labels *sample(void)
{
	struct labels *L = labels_new(3);
	assert_non_null(L);
	static const char *const kv0[][2] = {
		{ "a", "x" }, { "n", "10" }, { "f", "2.5" }, { "list", "p,q, r" }, { "nums", "1,2,3" },
		{ "s", "hello" }, { "empty", "" }, { "sp", " 5" }, { "big", "1e1" }, { "q", "c,d" },
	};
	static const char *const kv1[][2] = {
		{ "a", "y" }, { "n", "9" }, { "f", "-1" }, { "list", "q" }, { "nums", "4" },
	};
	for (size_t i = 0; i < sizeof kv0 / sizeof kv0[0]; i++)
		assert_int_equal(labels_set(L, 0, kv0[i][0], kv0[i][1]), 0);
	for (size_t i = 0; i < sizeof kv1 / sizeof kv1[0]; i++)
		assert_int_equal(labels_set(L, 1, kv1[i][0], kv1[i][1]), 0);
	return L;
}

/* want: "101" = node 0 matches, node 1 does not, node 2 does. */
static const struct { const char *expr; const char *want; } match_cases[] = {
	{ "", "111" },
	/* exists / does not */
	{ "a", "110" },
	{ "!a", "001" },
	{ "s", "100" },
	{ "empty", "100" },
	{ "!empty", "011" },
	{ "nosuchkey", "000" },
	{ "!nosuchkey", "111" },
	/* equality */
	{ "a = x", "100" },
	{ "a == y", "010" },
	{ "a = \"x\"", "100" },
	{ "a = X", "000" },
	{ "empty = \"\"", "100" },
	{ "a != x", "011" },            /* a missing key meets != */
	{ "a != z", "111" },
	/* sets */
	{ "a in (x, y)", "110" },
	{ "a in (z)", "000" },
	{ "a notin (x)", "011" },
	{ "a notin (x, y)", "001" },
	/* lists: any element */
	{ "list = p", "100" },
	{ "list = q", "110" },
	{ "list = r", "100" },          /* blanks around an element are trimmed */
	{ "list = \"p,q, r\"", "100" }, /* the whole value */
	{ "list = s", "000" },
	{ "list in (s, r)", "100" },
	{ "list != q", "001" },
	{ "list != p", "011" },
	{ "list notin (q)", "001" },
	{ "list notin (p, z)", "011" },
	{ "list notin (x, y)", "111" },
	{ "q = \"c,d\"", "100" },
	{ "nums = 2", "100" },
	{ "nums = 2.0", "100" },        /* an element compares as a number too */
	{ "nums in (4, 5)", "010" },
	{ "nums >= 1", "010" },         /* a list is not a number */
	/* numbers */
	{ "n >= 9", "110" },
	{ "n >= 10", "100" },
	{ "n > 9", "100" },
	{ "n <= 9", "010" },
	{ "n < 10", "010" },
	{ "n = 10.0", "100" },
	{ "n = 1e1", "100" },
	{ "n = \"10\"", "100" },
	{ "n in (9.0, 11)", "010" },
	{ "n != 10", "011" },
	{ "f > 0", "100" },
	{ "f < -0.5", "010" },
	{ "big = 10", "100" },
	{ "big >= 10", "100" },
	{ "s >= 0", "000" },            /* not a number: false, whatever the side */
	{ "s < 0", "000" },
	{ "sp >= 0", "000" },           /* " 5" stays a string */
	{ "sp = \" 5\"", "100" },
	{ "nosuchkey < 1", "000" },
	{ "nosuchkey = 1", "000" },
	/* conjunctions */
	{ "a = x, n >= 10", "100" },
	{ "a, !s", "010" },
	{ "a in (x, y), n > 9", "100" },
	{ "!a, !n", "001" },
};

static void test_match(void **state)
{
	(void)state;
	struct labels *L = sample();
	for (size_t i = 0; i < sizeof match_cases / sizeof match_cases[0]; i++) {
		char err[256];
		struct selector *S = sel_compile(match_cases[i].expr, err, sizeof err);
		if (!S)
			fail_msg("\"%s\": %s", match_cases[i].expr, err);
		for (int n = 0; n < 3; n++) {
			bool want = match_cases[i].want[n] == '1';
			if (sel_match(S, L, n) != want)
				fail_msg("\"%s\" on node %d: got %d, want %d", match_cases[i].expr, n, !want, want);
			/* A node matches exactly when it meets every term. */
			assert_int_equal(sel_score(S, L, n) == sel_nterms(S), want);
		}
		sel_free(S);
	}
	labels_free(L);
}

static void test_score(void **state)
{
	(void)state;
	struct labels *L = sample();
	char err[256];
	struct selector *S = sel_compile("a = x, n >= 9, list = q, !a, nosuchkey", err, sizeof err);
	assert_non_null(S);
	assert_int_equal(sel_nterms(S), 5);
	assert_int_equal(sel_score(S, L, 0), 3);
	assert_int_equal(sel_score(S, L, 1), 2);
	assert_int_equal(sel_score(S, L, 2), 1);
	for (int n = 0; n < 3; n++)
		assert_false(sel_match(S, L, n));
	sel_free(S);

	/* The empty expression: every node meets it, with score 0. */
	S = sel_compile("   ", err, sizeof err);
	assert_non_null(S);
	assert_int_equal(sel_nterms(S), 0);
	for (int n = 0; n < 3; n++) {
		assert_true(sel_match(S, L, n));
		assert_int_equal(sel_score(S, L, n), 0);
	}
	sel_free(S);
	labels_free(L);
}

/* ---- the store ---------------------------------------------------------- */

static void test_set_order(void **state)
{
	(void)state;
	struct labels *L = labels_new(2);
	assert_non_null(L);
	assert_int_equal(labels_count(L, 0), 0);
	assert_null(labels_get(L, 0, "a"));
	assert_int_equal(labels_set(L, 0, "a", "1"), 0);
	assert_int_equal(labels_set(L, 0, "b", "2"), 0);
	assert_int_equal(labels_set(L, 0, "a", "3"), 0);   /* replaces, keeps its place */
	assert_int_equal(labels_set(L, 1, "b", "x"), 0);
	assert_int_equal(labels_count(L, 0), 2);
	assert_int_equal(labels_count(L, 1), 1);
	const char *k, *v;
	labels_at(L, 0, 0, &k, &v);
	assert_string_equal(k, "a");
	assert_string_equal(v, "3");
	labels_at(L, 0, 1, &k, &v);
	assert_string_equal(k, "b");
	assert_string_equal(v, "2");
	assert_string_equal(labels_get(L, 1, "b"), "x");
	assert_null(labels_get(L, 1, "a"));

	/* A value that was numeric and is replaced by a string stops comparing. */
	char err[256];
	struct selector *S = sel_compile("a >= 3", err, sizeof err);
	assert_true(sel_match(S, L, 0));
	assert_int_equal(labels_set(L, 0, "a", "three"), 0);
	assert_false(sel_match(S, L, 0));
	sel_free(S);

	/* Bad keys are refused and change nothing. */
	assert_int_equal(labels_set(L, 0, "", "x"), -1);
	assert_int_equal(labels_set(L, 0, "has space", "x"), -1);
	assert_int_equal(labels_set(L, 0, "a=b", "x"), -1);
	assert_int_equal(labels_set(L, 0, "!a", "x"), -1);
	assert_int_equal(labels_count(L, 0), 2);
	assert_true(labels_key_valid("k8s.io/zone-a_1"));
	assert_false(labels_key_valid("a,b"));

	/* Enough keys to grow the dictionary several times. */
	char key[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "k%d", i);
		assert_int_equal(labels_set(L, i % 2, key, key + 1), 0);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "k%d", i);
		assert_string_equal(labels_get(L, i % 2, key), key + 1);
		assert_null(labels_get(L, 1 - i % 2, key));
	}
	assert_int_equal(labels_count(L, 0), 502);
	labels_free(L);
	labels_free(NULL);
}

static void test_grow(void **state)
{
	(void)state;
	struct labels *L = labels_new(0);
	assert_non_null(L);
	assert_int_equal(labels_grow(L, 2), 0);
	assert_int_equal(labels_set(L, 1, "a", "1"), 0);
	assert_int_equal(labels_grow(L, 100), 0);
	assert_string_equal(labels_get(L, 1, "a"), "1");
	assert_int_equal(labels_count(L, 99), 0);
	assert_null(labels_get(L, 99, "a"));
	assert_int_equal(labels_set(L, 99, "a", "2"), 0);
	assert_string_equal(labels_get(L, 99, "a"), "2");
	assert_int_equal(labels_grow(L, 50), 0);   /* never shrinks */
	assert_string_equal(labels_get(L, 99, "a"), "2");

	char err[256];
	struct selector *S = sel_compile("a = 2", err, sizeof err);
	assert_false(sel_match(S, L, 1));
	assert_true(sel_match(S, L, 99));
	assert_false(sel_match(S, L, 50));
	sel_free(S);
	labels_free(L);
}

/* ---- cluster_label_nodes ------------------------------------------------ */

/* A "k=v\0k=v\0\0" buffer the cluster takes ownership of. */
static char *kvbuf(const char *lit, size_t size)
{
	char *b = malloc(size);
	assert_non_null(b);
	memcpy(b, lit, size);
	return b;
}
/* Write each entry with its "\0"; the literal's own NUL ends the list. */
#define KV(lit) kvbuf(lit, sizeof lit)

/* Two 8-GPU nodes in a liquid-cooled rack on leaf-a, one CPU-only node in
 * an air-cooled rack that is its own leaf; two of three pools reachable. */
static void build(struct cluster *cl)
{
	cluster_init(cl);
	cl->cat.gpus = calloc(1, sizeof *cl->cat.gpus);
	cl->cat.cpus = calloc(1, sizeof *cl->cat.cpus);
	assert_true(cl->cat.gpus && cl->cat.cpus);
	cl->cat.ngpus = cl->cat.ncpus = 1;
	struct gpu_model *g = &cl->cat.gpus[0];
	snprintf(g->name, sizeof g->name, "H100-SXM-80GB");
	g->mem_mib = 80 * 1024;
	g->tdp_w = 700;
	g->fp16_tflops = 989.5;
	g->fp8_tflops = 1979;
	g->mig = true;
	snprintf(g->product, sizeof g->product, "NVIDIA-H100-80GB-HBM3");   /* the catalog's "gfd" */
	snprintf(g->family, sizeof g->family, "hopper");
	g->cc_major = 9;
	g->cc_minor = 0;
	snprintf(g->pci_class, sizeof g->pci_class, "0302");
	struct cpu_model *c = &cl->cat.cpus[0];
	snprintf(c->name, sizeof c->name, "Xeon-8480+");
	c->cores = 56;
	c->threads = 112;
	c->base_ghz = 2.0;
	c->avx512 = c->amx = true;

	cl->mig = calloc(1, sizeof *cl->mig);
	assert_non_null(cl->mig);
	cl->mig->ncards = 1;
	struct mig_card *card = &cl->mig->cards[0];
	snprintf(card->gpu, sizeof card->gpu, "H100-SXM-80GB");
	static const char *const prof[] = { "1g.10gb", "3g.40gb", "7g.80gb" };
	card->nprofiles = 3;
	for (int p = 0; p < 3; p++)
		snprintf(card->profiles[p].name, sizeof card->profiles[p].name, "%s", prof[p]);

	struct storage_pool sp = { .kind = POOL_NVME, .exclusive_class = -1, .cap_gib = 500 * 1024,
	                           .bw_mbps = 20000, .admit = 1 };
	snprintf(sp.name, sizeof sp.name, "scratch");
	assert_int_equal(cluster_add_pool(cl, &sp), 0);
	sp.kind = POOL_HDD;
	sp.cap_gib = 2048;
	sp.bw_mbps = 1500;
	snprintf(sp.name, sizeof sp.name, "archive");
	assert_int_equal(cluster_add_pool(cl, &sp), 1);
	sp.kind = POOL_BACKUP;
	snprintf(sp.name, sizeof sp.name, "tape");
	assert_int_equal(cluster_add_pool(cl, &sp), 2);

	struct node_type t = { .gpu_model = 0, .gpus = 8, .cpu_model = 0, .sockets = 2, .cores = 112,
	                       .numa = 2, .mem_mib = 2048 * 1024, .pools = 0x3, .mig_cards = 2 };
	snprintf(t.name, sizeof t.name, "h100x8");
	snprintf(t.plane, sizeof t.plane, "ib400");
	t.labels = KV("site.zone=east\0cooling=immersion\0owner=ml-team\0");
	assert_int_equal(cluster_add_type(cl, &t), 0);
	struct node_type u = { .gpu_model = -1, .cpu_model = -1, .sockets = 1, .cores = 64,
	                       .mem_mib = 256 * 1024 };
	snprintf(u.name, sizeof u.name, "cpu-only");
	assert_int_equal(cluster_add_type(cl, &u), 1);
	/* The plane's kind and speed come from its name in the core; set here
	 * so that this test checks labelling only. */
	assert_int_equal(cl->nplanes, 1);
	cl->planes[0].kind = PLANE_IB;
	cl->planes[0].gbps = 400;

	assert_int_equal(cluster_add_rack(cl, "r1", 40000, COOL_LIQUID), 0);
	int leaf = cluster_set_leaf(cl, 0, "leaf-a");
	assert_true(leaf >= 0);
	cl->racks[0].labels = KV("site.zone=west\0site.maintenance=true\0");
	assert_int_equal(cluster_add_nodes(cl, 0, 0, 2), 0);
	assert_int_equal(cluster_add_rack(cl, "r2", 15500, COOL_AIR), 1);
	assert_int_equal(cluster_add_nodes(cl, 1, 1, 1), 0);
	assert_int_equal(cl->nnodes, 3);
	/* What the core copies into each node (set again in case it does not). */
	for (int i = 0; i < 3; i++) {
		struct node *n = &cl->nodes[i];
		const struct node_type *nt = &cl->types[n->type];
		n->leaf = cl->racks[n->rack].leaf;
		n->pools = nt->pools;
		n->mig_cards = nt->mig_cards;
		n->numa = nt->numa > 0 ? nt->numa : nt->sockets;
		n->avx512 = n->amx = nt->cpu_model >= 0;
	}
}

static const char *const want_gpu_node[][2] = {
	{ "node.name", "r1-n1" },
	{ "node.type", "h100x8" },
	{ "rack", "r1" },
	{ "rack.power_kw", "40" },
	{ "cooling", "immersion" },     /* the type's label overrides, in place */
	{ "net.leaf", "leaf-a" },
	{ "net.plane", "ib400" },
	{ "net.kind", "ib" },
	{ "net.gbps", "400" },
	{ "gpu.count", "8" },
	{ "gpu.model", "H100-SXM-80GB" },
	{ "gpu.mem_gib", "80" },
	{ "gpu.tdp_w", "700" },
	{ "gpu.fp16_tflops", "989.5" },
	{ "gpu.fp8_tflops", "1979" },
	{ "gpu.fp8", "true" },
	{ "gpu.mig", "true" },
	{ "gpu.mig_cards", "2" },
	{ "gpu.mig_profiles", "1g.10gb,3g.40gb,7g.80gb" },
	{ "cpu.model", "Xeon-8480+" },
	{ "cpu.sockets", "2" },
	{ "cpu.cores", "112" },
	{ "cpu.threads", "224" },
	{ "cpu.numa", "2" },
	{ "cpu.avx512", "true" },
	{ "cpu.amx", "true" },
	{ "cpu.ghz", "2" },
	{ "mem_gib", "2048" },
	{ "storage", "scratch,archive" },
	{ "storage.kinds", "nvme,hdd" },
	{ "storage.scratch.capacity_tib", "500" },
	{ "storage.scratch.gbps", "20" },
	{ "storage.archive.capacity_tib", "2" },
	{ "storage.archive.gbps", "1.5" },
	{ "kubernetes.io/hostname", "r1-n1" },
	{ "kubernetes.io/os", "linux" },
	{ "kubernetes.io/arch", "amd64" },
	{ "node.kubernetes.io/instance-type", "h100x8" },
	{ "topology.kubernetes.io/zone", "r1" },
	{ "feature.node.kubernetes.io/cpu-model.vendor_id", "Intel" },
	{ "feature.node.kubernetes.io/cpu-cpuid.AVX512F", "true" },
	{ "feature.node.kubernetes.io/cpu-cpuid.AMXTILE", "true" },
	{ "feature.node.kubernetes.io/cpu-cpuid.AMXBF16", "true" },
	{ "feature.node.kubernetes.io/cpu-cpuid.AMXINT8", "true" },
	{ "feature.node.kubernetes.io/memory-numa", "true" },
	{ "feature.node.kubernetes.io/rdma.capable", "true" },
	{ "feature.node.kubernetes.io/rdma.available", "true" },
	{ "nvidia.com/gpu.present", "true" },
	{ "nvidia.com/gpu.count", "8" },
	{ "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3" },
	{ "nvidia.com/gpu.memory", "81920" },
	{ "nvidia.com/mig.capable", "true" },
	{ "nvidia.com/mig.strategy", "mixed" },
	{ "nvidia.com/gpu.family", "hopper" },
	{ "nvidia.com/gpu.compute.major", "9" },
	{ "nvidia.com/gpu.compute.minor", "0" },
	{ "feature.node.kubernetes.io/pci-0302_10de.present", "true" },
	{ "site.zone", "west" },        /* the rack's label overrides the type's */
	{ "owner", "ml-team" },
	{ "site.maintenance", "true" },
};

static void test_cluster_labels(void **state)
{
	(void)state;
	struct cluster cl;
	char err[256] = "";
	build(&cl);
	if (cluster_label_nodes(&cl, err, sizeof err))
		fail_msg("%s", err);
	assert_non_null(cl.labels);

	/* The GPU node: every label, in the order it was first set. */
	size_t nwant = sizeof want_gpu_node / sizeof want_gpu_node[0];
	assert_int_equal(labels_count(cl.labels, 0), (int)nwant);
	for (size_t i = 0; i < nwant; i++) {
		const char *k, *v;
		labels_at(cl.labels, 0, (int)i, &k, &v);
		if (strcmp(k, want_gpu_node[i][0]) || strcmp(v, want_gpu_node[i][1]))
			fail_msg("label %zu: got %s=%s, want %s=%s", i, k, v, want_gpu_node[i][0],
			         want_gpu_node[i][1]);
	}
	assert_string_equal(labels_get(cl.labels, 1, "node.name"), "r1-n2");

	/* The CPU-only node: no GPU, CPU-model, plane or storage labels. */
	assert_string_equal(labels_get(cl.labels, 2, "gpu.count"), "0");
	assert_string_equal(labels_get(cl.labels, 2, "cooling"), "air");
	assert_string_equal(labels_get(cl.labels, 2, "rack.power_kw"), "15.5");
	assert_string_equal(labels_get(cl.labels, 2, "net.leaf"), "r2");
	assert_string_equal(labels_get(cl.labels, 2, "cpu.cores"), "64");
	assert_string_equal(labels_get(cl.labels, 2, "cpu.threads"), "64");
	assert_string_equal(labels_get(cl.labels, 2, "cpu.sockets"), "1");
	assert_string_equal(labels_get(cl.labels, 2, "cpu.numa"), "1");
	assert_string_equal(labels_get(cl.labels, 2, "cpu.avx512"), "false");
	assert_string_equal(labels_get(cl.labels, 2, "mem_gib"), "256");
	static const char *const absent[] = {
		"gpu.model", "gpu.mem_gib", "gpu.fp8", "gpu.mig", "gpu.mig_profiles", "cpu.model",
		"cpu.ghz", "net.plane", "net.kind", "net.gbps", "storage", "storage.kinds", "site.zone",
	};
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		if (labels_get(cl.labels, 2, absent[i]))
			fail_msg("CPU-only node has %s", absent[i]);

	/* The documented examples select what they say. */
	static const struct { const char *expr; const char *want; } sel[] = {
		{ "gpu.mem_gib >= 80, net.kind = ib", "110" },
		{ "gpu.model in (H100-SXM-80GB, H200-SXM-141GB)", "110" },
		{ "!site.maintenance", "001" },
		{ "cooling = liquid", "000" },
		{ "cooling = air", "001" },
		{ "gpu.count = 0", "001" },
		{ "gpu.mig_profiles = 3g.40gb", "110" },
		{ "storage.kinds = hdd, storage.scratch.gbps >= 10", "110" },
		{ "storage notin (scratch)", "001" },
		{ "cpu.amx = true, cpu.threads > 200", "110" },
	};
	for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
		struct selector *S = sel_compile(sel[i].expr, err, sizeof err);
		if (!S)
			fail_msg("\"%s\": %s", sel[i].expr, err);
		for (int n = 0; n < 3; n++)
			if (sel_match(S, cl.labels, n) != (sel[i].want[n] == '1'))
				fail_msg("\"%s\" on node %d: want %c", sel[i].expr, n, sel[i].want[n]);
		sel_free(S);
	}

	/* Labelling again replaces the store (ASan would see a leak). */
	assert_int_equal(cluster_label_nodes(&cl, err, sizeof err), 0);
	assert_string_equal(labels_get(cl.labels, 0, "site.zone"), "west");
	cluster_fini(&cl);
}

/* The label store without a MIG table: no gpu.mig_profiles. */
static void test_cluster_no_mig(void **state)
{
	(void)state;
	struct cluster cl;
	char err[256] = "";
	build(&cl);
	free(cl.mig);
	cl.mig = NULL;
	assert_int_equal(cluster_label_nodes(&cl, err, sizeof err), 0);
	assert_null(labels_get(cl.labels, 0, "gpu.mig_profiles"));
	assert_string_equal(labels_get(cl.labels, 0, "gpu.mig"), "true");
	cluster_fini(&cl);
}

static void expect_label_error(const char *type_kv, size_t tsize, const char *rack_kv, size_t rsize,
                               const char *want)
{
	struct cluster cl;
	char err[256] = "";
	build(&cl);
	if (type_kv) {
		free(cl.types[1].labels);
		cl.types[1].labels = kvbuf(type_kv, tsize);
	}
	if (rack_kv) {
		free(cl.racks[1].labels);
		cl.racks[1].labels = kvbuf(rack_kv, rsize);
	}
	assert_int_equal(cluster_label_nodes(&cl, err, sizeof err), -1);
	assert_null(cl.labels);
	if (strcmp(err, want) != 0)
		fail_msg("got  %s\nwant %s", err, want);
	cluster_fini(&cl);
}

static void test_cluster_label_errors(void **state)
{
	(void)state;
	expect_label_error("ok=1\0bad key=1\0", sizeof "ok=1\0bad key=1\0", NULL, 0,
	                   "node type \"cpu-only\": label key \"bad key\" is not valid "
	                   "(1 to 128 characters of A-Z a-z 0-9 _ . - /)");
	expect_label_error(NULL, 0, "=x\0", sizeof "=x\0",
	                   "rack \"r2\": label key \"\" is not valid "
	                   "(1 to 128 characters of A-Z a-z 0-9 _ . - /)");
	expect_label_error(NULL, 0, "novalue\0", sizeof "novalue\0",
	                   "rack \"r2\": label \"novalue\" has no value (expected key=value)");

	/* A pool whose name cannot be part of a key. */
	struct cluster cl;
	char err[256] = "";
	build(&cl);
	snprintf(cl.pools[1].name, sizeof cl.pools[1].name, "old archive");
	assert_int_equal(cluster_label_nodes(&cl, err, sizeof err), -1);
	assert_string_equal(err, "storage pool \"old archive\": its name cannot be part of a label key "
	                         "(use A-Z a-z 0-9 _ . - /)");
	assert_null(cl.labels);
	cluster_fini(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_score),
		cmocka_unit_test(test_set_order),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_cluster_labels),
		cmocka_unit_test(test_cluster_no_mig),
		cmocka_unit_test(test_cluster_label_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
