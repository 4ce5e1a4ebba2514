/* label — node labels and compiled label expressions. See label.h.
 *
 * The store keeps one key dictionary for all nodes (an array of names by
 * id and an open-addressed table of ids), and per node a small array of
 * (key id, value) entries in the order they were first set. A node has a
 * few dozen labels, so a linear scan of its array beats anything cleverer.
 *
 * A value is classified once, when it is set: does it parse fully as a
 * finite number, and does it hold a comma (a list). Matching then only
 * compares: it never allocates, and it parses a list element as a number
 * in a small stack buffer only when the operand is numeric and the bytes
 * differ.
 *
 * A selector is compiled into exactly-sized arrays; the parser works in
 * fixed stack arrays bounded by the limits below, so a hostile expression
 * costs at most SEL_TERMS_MAX × SEL_SET_MAX × SEL_VALUE_MAX bytes. */
#include "sim/label.h"
#include "sim/taint.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEL_TERMS_MAX  64    /* terms in one expression */
#define SEL_SET_MAX    64    /* values in one in (...) / notin (...) set */
#define SEL_VALUE_MAX 256    /* bytes of one value in an expression */
#define NUM_TEXT_MAX   64    /* longest list element still tried as a number */

/* ---- shared helpers ---------------------------------------------------- */

/* FNV-1a: keys are short and few; anything stronger is wasted. */
static uint32_t hash_key(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* Character classes by hand: <ctype.h> depends on the locale. */
static bool is_key_char(int c)
{
	return label_key_char(c);
}

static bool is_word_char(int c)
{
	return is_key_char(c) || c == '+' || c == ':';
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Does s (NUL-terminated) parse fully as a finite number? Leading blanks
 * are refused so that " 5" stays a string, as it would in a shell. */
static bool parse_num(const char *s, double *out)
{
	if (!*s || is_blank((unsigned char)*s))
		return false;
	char *end;
	double x = strtod(s, &end);
	if (*end || !isfinite(x))
		return false;
	*out = x;
	return true;
}

/* ---- the store --------------------------------------------------------- */

struct lent {
	int32_t key;        /* id in the dictionary */
	bool num_ok;        /* the whole value is a finite number ... */
	bool list;          /* ... or it has a comma */
	double num;
	char *val;          /* owned */
};

struct lnode {
	struct lent *e;
	int32_t n, cap;
	struct taint *taint;   /* owned (sim/taint.h) */
	int32_t ntaint;
	bool hard, soft;       /* has a NoSchedule/NoExecute taint; a PreferNoSchedule one */
};

struct labels {
	struct lnode *node;
	int32_t nnodes;
	char **key;         /* names by id, owned */
	uint32_t *keyhash;
	int32_t nkeys, keycap;
	int32_t *slot;      /* key ids, -1 empty; a power of two, at most half full */
	uint32_t nslot;
	int32_t nhard, nsoft;   /* nodes with hard / soft taints */
};

struct labels *labels_new(int32_t nnodes)
{
	assert(nnodes >= 0);
	struct labels *L = calloc(1, sizeof *L);
	if (!L)
		return NULL;
	/* One spare element so that zero nodes is not a NULL array. */
	L->node = calloc((size_t)nnodes + 1, sizeof *L->node);
	L->nslot = 64;
	L->slot = malloc(L->nslot * sizeof *L->slot);
	if (!L->node || !L->slot) {
		labels_free(L);
		return NULL;
	}
	memset(L->slot, 0xff, L->nslot * sizeof *L->slot);
	L->nnodes = nnodes;
	return L;
}

void labels_free(struct labels *L)
{
	if (!L)
		return;
	if (L->node)
		for (int32_t i = 0; i < L->nnodes; i++) {
			for (int32_t k = 0; k < L->node[i].n; k++)
				free(L->node[i].e[k].val);
			free(L->node[i].e);
			taint_free(L->node[i].taint, L->node[i].ntaint);
		}
	for (int32_t k = 0; k < L->nkeys; k++)
		free(L->key[k]);
	free(L->key);
	free(L->keyhash);
	free(L->slot);
	free(L->node);
	free(L);
}

int labels_grow(struct labels *L, int32_t nnodes)
{
	if (nnodes <= L->nnodes)
		return 0;
	struct lnode *nn = realloc(L->node, ((size_t)nnodes + 1) * sizeof *nn);
	if (!nn)
		return -1;
	memset(nn + L->nnodes, 0, ((size_t)nnodes + 1 - (size_t)L->nnodes) * sizeof *nn);
	L->node = nn;
	L->nnodes = nnodes;
	return 0;
}

/* The id of key (len bytes, hash h), or -1 when no node has it. */
static int32_t dict_find(const struct labels *L, const char *key, size_t len, uint32_t h)
{
	for (uint32_t i = h & (L->nslot - 1);; i = (i + 1) & (L->nslot - 1)) {
		int32_t id = L->slot[i];
		if (id < 0)
			return -1;
		if (L->keyhash[id] == h && strncmp(L->key[id], key, len) == 0 && L->key[id][len] == 0)
			return id;
	}
}

static void dict_place(struct labels *L, int32_t id)
{
	uint32_t i = L->keyhash[id] & (L->nslot - 1);
	while (L->slot[i] >= 0)
		i = (i + 1) & (L->nslot - 1);
	L->slot[i] = id;
}

/* The id of key, adding it to the dictionary; -1 on ENOMEM. */
static int32_t dict_intern(struct labels *L, const char *key)
{
	size_t len = strlen(key);
	uint32_t h = hash_key(key, len);
	int32_t id = dict_find(L, key, len, h);
	if (id >= 0)
		return id;
	if (L->nkeys == L->keycap) {
		int32_t ncap = L->keycap ? 2 * L->keycap : 32;
		char **nk = realloc(L->key, (size_t)ncap * sizeof *nk);
		if (!nk)
			return -1;
		L->key = nk;
		uint32_t *nh = realloc(L->keyhash, (size_t)ncap * sizeof *nh);
		if (!nh)
			return -1;
		L->keyhash = nh;
		L->keycap = ncap;
	}
	if ((uint32_t)(L->nkeys + 1) * 2 > L->nslot) {
		uint32_t ns = L->nslot * 2;
		int32_t *slot = malloc(ns * sizeof *slot);
		if (!slot)
			return -1;
		memset(slot, 0xff, ns * sizeof *slot);
		free(L->slot);
		L->slot = slot;
		L->nslot = ns;
		for (int32_t k = 0; k < L->nkeys; k++)
			dict_place(L, k);
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, key, len + 1);
	id = L->nkeys++;
	L->key[id] = copy;
	L->keyhash[id] = h;
	dict_place(L, id);
	return id;
}

static struct lent *node_find(const struct labels *L, int32_t node, int32_t id)
{
	const struct lnode *ln = &L->node[node];
	for (int32_t k = 0; k < ln->n; k++)
		if (ln->e[k].key == id)
			return &ln->e[k];
	return NULL;
}

int labels_set(struct labels *L, int32_t node, const char *key, const char *val)
{
	assert(node >= 0 && node < L->nnodes && val);
	if (!labels_key_valid(key))
		return -1;
	size_t vlen = strlen(val);
	char *copy = malloc(vlen + 1);
	if (!copy)
		return -1;
	memcpy(copy, val, vlen + 1);
	int32_t id = dict_intern(L, key);
	if (id < 0)
		goto fail;
	struct lnode *ln = &L->node[node];
	struct lent *e = node_find(L, node, id);
	if (e) {
		/* Replaces in place: a node keeps the order labels were first set. */
		free(e->val);
	} else {
		if (ln->n == ln->cap) {
			int32_t ncap = ln->cap ? 2 * ln->cap : 16;
			struct lent *ne = realloc(ln->e, (size_t)ncap * sizeof *ne);
			if (!ne)
				goto fail;
			ln->e = ne;
			ln->cap = ncap;
		}
		e = &ln->e[ln->n++];
		e->key = id;
	}
	e->val = copy;
	e->list = strchr(copy, ',') != NULL;
	e->num_ok = !e->list && parse_num(copy, &e->num);
	return 0;
fail:
	free(copy);
	return -1;
}

int labels_set_taints(struct labels *L, int32_t node, const char *text, char *err, size_t errlen)
{
	assert(node >= 0 && node < L->nnodes);
	struct lnode *ln = &L->node[node];
	struct taint *t = NULL;
	int32_t n = 0;
	if (taint_parse(text, &t, &n, err, errlen))
		return -1;
	L->nhard -= ln->hard;
	L->nsoft -= ln->soft;
	taint_free(ln->taint, ln->ntaint);
	ln->taint = t;
	ln->ntaint = n;
	ln->hard = ln->soft = false;
	for (int32_t k = 0; k < n; k++) {
		if (t[k].effect == TAINT_PREFER_NO_SCHEDULE)
			ln->soft = true;
		else
			ln->hard = true;
	}
	L->nhard += ln->hard;
	L->nsoft += ln->soft;
	return 0;
}

int32_t labels_tainted(const struct labels *L, bool soft)
{
	return soft ? L->nsoft : L->nhard;
}

static const struct lent *lookup(const struct labels *L, int32_t node, const char *key,
                                 size_t len, uint32_t h)
{
	int32_t id = dict_find(L, key, len, h);
	return id < 0 ? NULL : node_find(L, node, id);
}

const char *labels_get(const struct labels *L, int32_t node, const char *key)
{
	assert(node >= 0 && node < L->nnodes);
	size_t len = strlen(key);
	const struct lent *e = lookup(L, node, key, len, hash_key(key, len));
	return e ? e->val : NULL;
}

int labels_count(const struct labels *L, int32_t node)
{
	assert(node >= 0 && node < L->nnodes);
	return L->node[node].n;
}

void labels_at(const struct labels *L, int32_t node, int i, const char **key, const char **val)
{
	assert(node >= 0 && node < L->nnodes && i >= 0 && i < L->node[node].n);
	const struct lent *e = &L->node[node].e[i];
	*key = L->key[e->key];
	*val = e->val;
}

/* ---- compiled expressions ---------------------------------------------- */

enum sel_op { OP_EXISTS, OP_ABSENT, OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_GE, OP_GT, OP_LE, OP_LT };

struct sel_val {
	char *s;            /* owned */
	size_t len;
	bool num_ok;
	double num;
};

struct sel_term {
	int32_t op;         /* enum sel_op */
	int32_t nval;       /* 0 for exists / absent, 1 for = != < ..., the set's size */
	char *key;          /* owned */
	size_t keylen;
	uint32_t hash;
	struct sel_val *val;    /* owned */
};

/* A disjunction of conjunctions: alternative a is the terms
 * [alt_end[a - 1], alt_end[a]) ("|" between alternatives, "," between the
 * terms of one). With tolerations (sel_compile_tol), matching also checks
 * the node's taints. */
struct selector {
	int32_t nterms, nalt;
	int32_t alt_end[SEL_TERMS_MAX];
	struct toleration *tol;   /* owned */
	int32_t ntol;
	bool taints;              /* check taints: a required (hard) or preferred (soft) selector */
	bool prefer;
	char *key;                /* owned; the key it was compiled under, or NULL */
	struct sel_term term[];
};

static void term_fini(struct sel_term *t)
{
	for (int32_t v = 0; v < t->nval; v++)
		free(t->val[v].s);
	free(t->val);
	free(t->key);
}

void sel_free(struct selector *S)
{
	if (!S)
		return;
	for (int32_t i = 0; i < S->nterms; i++)
		term_fini(&S->term[i]);
	toleration_free(S->tol, S->ntol);
	free(S->key);
	free(S);
}

int sel_nterms(const struct selector *S)
{
	return S ? S->nterms : 0;
}

struct parser {
	const char *text;
	const char *p;
	char *err;
	size_t errlen;
};

static void skip_blanks(struct parser *ps)
{
	while (is_blank((unsigned char)*ps->p))
		ps->p++;
}

/* What stands at s, for an error: "the end", a quoted word, or a quoted
 * character (bytes outside printable ASCII as \xNN). */
static void describe(const char *s, char *buf, size_t len)
{
	unsigned char c = (unsigned char)*s;
	if (!c) {
		snprintf(buf, len, "the end");
	} else if (c == '"') {
		int n = 1;
		while (s[n] && s[n] != '"' && n < 32)
			n++;
		snprintf(buf, len, "%.*s%s", n + (s[n] == '"'), s, s[n] == '"' ? "" : "...");
	} else if (is_word_char(c)) {
		size_t n = 0;
		while (is_word_char((unsigned char)s[n]))
			n++;
		if (n > 32)
			snprintf(buf, len, "\"%.32s...\"", s);
		else
			snprintf(buf, len, "\"%.*s\"", (int)n, s);
	} else if (c >= 0x20 && c < 0x7f) {
		snprintf(buf, len, "\"%c\"", c);
	} else {
		snprintf(buf, len, "byte \\x%02x", c);
	}
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	if (!ps->errlen)
		return;
	int n = snprintf(ps->err, ps->errlen, "column %d: ", (int)(at - ps->text) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* "expected X, got <what is at p>" at p. */
static void expected(struct parser *ps, const char *what)
{
	char got[48];
	describe(ps->p, got, sizeof got);
	fail_at(ps, ps->p, "expected %s, got %s", what, got);
}

static void out_of_memory(struct parser *ps)
{
	if (ps->errlen)
		snprintf(ps->err, ps->errlen, "out of memory");
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* A key at ps->p into t: 0, 1 when there is none (nothing reported), -1
 * on an error (reported). */
static int parse_key(struct parser *ps, struct sel_term *t)
{
	const char *s = ps->p;
	size_t n = 0;
	while (is_key_char((unsigned char)s[n]))
		n++;
	if (!n)
		return 1;
	if (n > LABEL_KEY_MAX) {
		fail_at(ps, s, "key is longer than %d characters", LABEL_KEY_MAX);
		return -1;
	}
	if (!(t->key = dup_n(s, n))) {
		out_of_memory(ps);
		return -1;
	}
	t->keylen = n;
	t->hash = hash_key(s, n);
	ps->p = s + n;
	return 0;
}

/* A bare word or a double-quoted string (with \" and \\) at ps->p into v:
 * 0, 1 when no value starts here (nothing reported), -1 on an error. */
static int parse_value(struct parser *ps, struct sel_val *v)
{
	const char *s = ps->p;
	char buf[SEL_VALUE_MAX + 1];
	size_t n = 0;
	if (*s == '"') {
		const char *q = s + 1;
		for (;; q++) {
			if (!*q) {
				fail_at(ps, s, "unterminated string (no closing '\"')");
				return -1;
			}
			if (*q == '"')
				break;
			if (*q == '\\' && (q[1] == '"' || q[1] == '\\'))
				q++;
			if (n == SEL_VALUE_MAX) {
				fail_at(ps, s, "value is longer than %d characters", SEL_VALUE_MAX);
				return -1;
			}
			buf[n++] = *q;
		}
		ps->p = q + 1;
	} else {
		while (is_word_char((unsigned char)s[n])) {
			if (n == SEL_VALUE_MAX) {
				fail_at(ps, s, "value is longer than %d characters", SEL_VALUE_MAX);
				return -1;
			}
			buf[n] = s[n];
			n++;
		}
		if (!n)
			return 1;
		ps->p = s + n;
	}
	buf[n] = 0;
	if (!(v->s = dup_n(buf, n))) {
		out_of_memory(ps);
		return -1;
	}
	v->len = n;
	v->num_ok = parse_num(v->s, &v->num);
	return 0;
}

static const char *op_text(int op)
{
	switch (op) {
	case OP_EQ: return "=";
	case OP_NE: return "!=";
	case OP_IN: return "in";
	case OP_NOTIN: return "notin";
	case OP_GE: return ">=";
	case OP_GT: return ">";
	case OP_LE: return "<=";
	default: return "<";
	}
}

/* The operator after a key; -1 when there is none (reported). Exists is
 * returned at a ',' or the end, which are not consumed. */
static int parse_op(struct parser *ps, const struct sel_term *t)
{
	const char *s = ps->p;
	switch (*s) {
	case 0:
	case ',':
	case '|':   /* "h100 | h200": an existence test ends an alternative too */
		return OP_EXISTS;
	case '=':
		ps->p = s + (s[1] == '=' ? 2 : 1);
		return OP_EQ;
	case '!':
		if (s[1] == '=') {
			ps->p = s + 2;
			return OP_NE;
		}
		break;
	case '>':
	case '<':
		ps->p = s + (s[1] == '=' ? 2 : 1);
		if (*s == '>')
			return s[1] == '=' ? OP_GE : OP_GT;
		return s[1] == '=' ? OP_LE : OP_LT;
	default:
		if (strncmp(s, "in", 2) == 0 && !is_key_char((unsigned char)s[2])) {
			ps->p = s + 2;
			return OP_IN;
		}
		if (strncmp(s, "notin", 5) == 0 && !is_key_char((unsigned char)s[5])) {
			ps->p = s + 5;
			return OP_NOTIN;
		}
		break;
	}
	char what[LABEL_KEY_MAX + 96];
	snprintf(what, sizeof what, "an operator (=, ==, !=, in, notin, >=, >, <=, <) or \",\" after \"%s\"",
	         t->key);
	expected(ps, what);
	return -1;
}

/* The values after the operator of t: one, or a parenthesised set. */
static int parse_operands(struct parser *ps, struct sel_term *t)
{
	struct sel_val tmp[SEL_SET_MAX];
	char what[64];
	int32_t n = 0;
	int rc;

	skip_blanks(ps);
	if (t->op != OP_IN && t->op != OP_NOTIN) {
		const char *at = ps->p;
		if ((rc = parse_value(ps, &tmp[0])) != 0) {
			if (rc > 0) {
				snprintf(what, sizeof what, "a %s after \"%s\"",
				         t->op >= OP_GE ? "number" : "value", op_text(t->op));
				expected(ps, what);
			}
			return -1;
		}
		n = 1;
		if (t->op >= OP_GE && !tmp[0].num_ok) {
			char got[48];
			describe(at, got, sizeof got);
			fail_at(ps, at, "expected a number after \"%s\", got %s", op_text(t->op), got);
			goto fail;
		}
	} else {
		if (*ps->p != '(') {
			snprintf(what, sizeof what, "\"(\" after \"%s\"", op_text(t->op));
			expected(ps, what);
			return -1;
		}
		ps->p++;
		for (;;) {
			skip_blanks(ps);
			if (n == SEL_SET_MAX) {
				fail_at(ps, ps->p, "more than %d values in the set of \"%s\"", SEL_SET_MAX, t->key);
				goto fail;
			}
			if ((rc = parse_value(ps, &tmp[n])) != 0) {
				if (rc > 0) {
					if (n)
						snprintf(what, sizeof what, "a value after \",\"");
					else
						snprintf(what, sizeof what, "a value after \"%s (\"", op_text(t->op));
					expected(ps, what);
				}
				goto fail;
			}
			n++;
			skip_blanks(ps);
			if (*ps->p == ')') {
				ps->p++;
				break;
			}
			if (*ps->p != ',') {
				expected(ps, "\",\" or \")\" in a set");
				goto fail;
			}
			ps->p++;
		}
	}
	if (!(t->val = malloc((size_t)n * sizeof *t->val))) {
		out_of_memory(ps);
		goto fail;
	}
	memcpy(t->val, tmp, (size_t)n * sizeof *t->val);
	t->nval = n;
	return 0;
fail:
	while (n > 0)
		free(tmp[--n].s);
	return -1;
}

/* One term at ps->p (blanks skipped); after is what came before it, for
 * the message when it is missing. */
static int parse_term(struct parser *ps, struct sel_term *t, const char *after)
{
	char what[32];
	int rc;

	memset(t, 0, sizeof *t);
	if (*ps->p == '!') {
		ps->p++;
		skip_blanks(ps);
		if ((rc = parse_key(ps, t)) > 0)
			expected(ps, "a key after \"!\"");
		if (rc)
			return -1;
		t->op = OP_ABSENT;
		return 0;
	}
	if ((rc = parse_key(ps, t)) > 0) {
		snprintf(what, sizeof what, "a key%s", after);
		expected(ps, what);
	}
	if (rc)
		return -1;
	skip_blanks(ps);
	if ((t->op = parse_op(ps, t)) < 0)
		return -1;
	if (t->op == OP_EXISTS)
		return 0;
	return parse_operands(ps, t);
}

struct selector *sel_compile(const char *text, char *err, size_t errlen)
{
	struct parser ps = { .text = text, .p = text, .err = err, .errlen = errlen };
	struct sel_term tmp[SEL_TERMS_MAX];
	int32_t alt_end[SEL_TERMS_MAX];
	int32_t n = 0, nalt = 0;
	const char *after = "";

	if (errlen)
		err[0] = 0;
	skip_blanks(&ps);
	while (*ps.p) {
		if (n == SEL_TERMS_MAX) {
			fail_at(&ps, ps.p, "more than %d terms", SEL_TERMS_MAX);
			goto fail;
		}
		if (parse_term(&ps, &tmp[n], after) < 0) {
			term_fini(&tmp[n]);
			goto fail;
		}
		n++;
		skip_blanks(&ps);
		if (!*ps.p)
			break;
		if (*ps.p == '|') {
			/* the end of an alternative: Kubernetes' ORed nodeSelectorTerms */
			alt_end[nalt++] = n;
			after = " after \"|\"";
		} else if (*ps.p == ',') {
			after = " after \",\"";
		} else {
			expected(&ps, "\",\" between terms or \"|\" between alternatives");
			goto fail;
		}
		ps.p++;
		skip_blanks(&ps);
		if (!*ps.p) {
			char what[32];
			snprintf(what, sizeof what, "a key%s", after);
			expected(&ps, what);
			goto fail;
		}
	}
	alt_end[nalt++] = n;
	struct selector *S = calloc(1, sizeof *S + (size_t)n * sizeof S->term[0]);
	if (!S) {
		out_of_memory(&ps);
		goto fail;
	}
	S->nterms = n;
	S->nalt = nalt;
	memcpy(S->alt_end, alt_end, (size_t)nalt * sizeof alt_end[0]);
	memcpy(S->term, tmp, (size_t)n * sizeof tmp[0]);
	return S;
fail:
	while (n > 0)
		term_fini(&tmp[--n]);
	return NULL;
}

/* ---- matching: no allocation from here on ------------------------------ */

/* One list element (blanks around it trimmed) against one operand. */
static bool elem_eq(const char *e, size_t len, const struct sel_val *v)
{
	while (len && is_blank((unsigned char)*e)) {
		e++;
		len--;
	}
	while (len && is_blank((unsigned char)e[len - 1]))
		len--;
	if (len == v->len && memcmp(e, v->s, len) == 0)
		return true;
	if (!v->num_ok || len == 0 || len >= NUM_TEXT_MAX)
		return false;
	char buf[NUM_TEXT_MAX];
	double x;
	memcpy(buf, e, len);
	buf[len] = 0;
	return parse_num(buf, &x) && x == v->num;
}

/* A value equals an operand when the whole value does (as a string, or
 * as a number when both are numbers), or, for a list, when any element
 * does. The whole-value test lets a quoted operand with commas match. */
static bool value_eq(const struct lent *e, const struct sel_val *v)
{
	if (strcmp(e->val, v->s) == 0)
		return true;
	if (!e->list)
		return e->num_ok && v->num_ok && e->num == v->num;
	const char *s = e->val;
	for (;;) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if (elem_eq(s, len, v))
			return true;
		if (!c)
			return false;
		s = c + 1;
	}
}

static bool any_eq(const struct lent *e, const struct sel_term *t)
{
	for (int32_t k = 0; k < t->nval; k++)
		if (value_eq(e, &t->val[k]))
			return true;
	return false;
}

/* Kubernetes' rule for a missing key: != and notin hold, everything that
 * needs a value (=, in, comparisons) does not. */
static bool term_holds(const struct sel_term *t, const struct labels *L, int32_t node)
{
	const struct lent *e = lookup(L, node, t->key, t->keylen, t->hash);
	switch (t->op) {
	case OP_EXISTS: return e != NULL;
	case OP_ABSENT: return e == NULL;
	case OP_EQ:
	case OP_IN: return e && any_eq(e, t);
	case OP_NE:
	case OP_NOTIN: return !e || !any_eq(e, t);
	case OP_GE: return e && e->num_ok && e->num >= t->val[0].num;
	case OP_GT: return e && e->num_ok && e->num > t->val[0].num;
	case OP_LE: return e && e->num_ok && e->num <= t->val[0].num;
	case OP_LT: return e && e->num_ok && e->num < t->val[0].num;
	}
	return false;
}

/* Every taint of node of the given kind (hard: NoSchedule and NoExecute;
 * soft: PreferNoSchedule) is tolerated. */
static bool tolerated(const struct selector *S, const struct labels *L, int32_t node, bool soft)
{
	const struct lnode *ln = &L->node[node];
	if (!(soft ? ln->soft : ln->hard))
		return true;
	for (int32_t k = 0; k < ln->ntaint; k++) {
		const struct taint *t = &ln->taint[k];
		if ((t->effect == TAINT_PREFER_NO_SCHEDULE) == soft && !toleration_covers(S->tol, S->ntol, t))
			return false;
	}
	return true;
}

bool sel_match(const struct selector *S, const struct labels *L, int32_t node)
{
	if (!S)
		return true;
	assert(node >= 0 && node < L->nnodes);
	bool any = false;
	for (int32_t a = 0, i = 0; a < S->nalt && !any; a++) {
		bool all = true;
		for (; i < S->alt_end[a]; i++)
			all = all && term_holds(&S->term[i], L, node);
		any = all;
	}
	if (!any)
		return false;
	return !S->taints || S->prefer || tolerated(S, L, node, false);
}

int sel_score(const struct selector *S, const struct labels *L, int32_t node)
{
	if (!S)
		return 0;
	assert(node >= 0 && node < L->nnodes);
	int best = 0;
	for (int32_t a = 0, i = 0; a < S->nalt; a++) {
		int score = 0;
		for (; i < S->alt_end[a]; i++)
			score += term_holds(&S->term[i], L, node);
		if (score > best)
			best = score;
	}
	/* A preferred selector with tolerations: a node whose PreferNoSchedule
	 * taints are all tolerated ranks above one with the same count of
	 * preferred terms met, and below one that meets one term more. */
	if (S->taints && S->prefer)
		return 2 * best + tolerated(S, L, node, true);
	return best;
}

struct selector *sel_compile_tol(const char *expr, const char *tolerations, bool prefer, const char *key,
                                 char *err, size_t errlen)
{
	struct selector *S = sel_compile(expr ? expr : "", err, errlen);
	if (!S)
		return NULL;
	S->taints = true;
	S->prefer = prefer;
	if (toleration_parse(tolerations, &S->tol, &S->ntol, err, errlen) ||
	    (key && !(S->key = strdup(key)))) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		sel_free(S);
		return NULL;
	}
	return S;
}

const char *sel_key(const struct selector *S)
{
	return S ? S->key : NULL;
}

int sel_nalternatives(const struct selector *S)
{
	return S ? S->nalt : 1;
}
