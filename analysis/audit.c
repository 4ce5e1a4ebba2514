/* audit — the hash-chained audit log. See audit.h; docs/audit.md documents
 * the tables, the serialisation and the actor mapping: keep them in step. */
#include "analysis/audit.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <zlib.h>

/* The domain tags that open each serialisation (NUL included): a record's
 * bytes can never be an anchor's, nor a later version's. */
static const char record_tag[] = "hetlab-audit-v1";
static const char anchor_tag[] = "hetlab-anchor-v1";
static const char zero_hash[AUDIT_HASH_HEX + 1] =
	"0000000000000000000000000000000000000000000000000000000000000000";

/* Field type bytes of the serialisation. */
enum { FT_INT = 'I', FT_TEXT = 'T', FT_NULL = 'N' };

static const char schema_sql[] =
	"CREATE TABLE audit("
	" seq INTEGER PRIMARY KEY, t_us INTEGER, actor TEXT, action TEXT, subject TEXT,"
	" reason TEXT, prev_hash TEXT, hash TEXT);\n"
	"CREATE TABLE audit_anchor("
	" id INTEGER PRIMARY KEY, seq INTEGER, hash TEXT, count INTEGER, cut_us INTEGER,"
	" archive TEXT, created TEXT, prev_anchor TEXT, anchor_hash TEXT);\n"
	"CREATE TABLE audit_head(seq INTEGER, hash TEXT);\n";
static const char insert_sql[] =
	"INSERT INTO audit(seq, t_us, actor, action, subject, reason, prev_hash, hash)"
	" VALUES(?,?,?,?,?,?,?,?)";
/* The columns every reader selects, in struct row's order. */
#define ROW_COLUMNS "seq, t_us, actor, action, subject, reason, prev_hash, hash"
static const char anchors_sql[] =
	"SELECT id, seq, hash, count, cut_us, archive, created, prev_anchor, anchor_hash"
	" FROM audit_anchor ORDER BY id";

static int failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the hash ------------------------------------------------------------ */

/* A field: bytes and length, or NULL. */
struct fld {
	const char *p;
	size_t n;
	bool null;
};

static struct fld fld_str(const char *s)
{
	return s ? (struct fld){ s, strlen(s), false } : (struct fld){ NULL, 0, true };
}

/* One digest context and a serialisation buffer, both reused. */
struct hasher {
	EVP_MD_CTX *ctx;
	const EVP_MD *md;
	unsigned char *buf;
	size_t cap;
};

/* The context is set to SHA-256 once here; each digest then re-initialises
 * it with the digest it has (EVP_DigestInit_ex2 with NULL), which skips the
 * per-call algorithm fetch of OpenSSL 3 (460 ns a record down to 260). */
static int hasher_init(struct hasher *h)
{
	memset(h, 0, sizeof *h);
	h->ctx = EVP_MD_CTX_new();
	h->md = EVP_sha256();
	h->cap = 1024;
	h->buf = malloc(h->cap);
	return h->ctx && h->md && h->buf && EVP_DigestInit_ex(h->ctx, h->md, NULL) == 1 ? 0 : -1;
}

static int hasher_start(struct hasher *h)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	return EVP_DigestInit_ex2(h->ctx, NULL, NULL);
#else
	return EVP_DigestInit_ex(h->ctx, h->md, NULL);
#endif
}

static void hasher_fini(struct hasher *h)
{
	EVP_MD_CTX_free(h->ctx);
	free(h->buf);
	memset(h, 0, sizeof *h);
}

static int hasher_reserve(struct hasher *h, size_t n)
{
	if (n <= h->cap)
		return 0;
	size_t cap = h->cap;
	while (cap < n)
		cap *= 2;
	unsigned char *p = realloc(h->buf, cap);
	if (!p)
		return -1;
	h->buf = p;
	h->cap = cap;
	return 0;
}

static unsigned char *put_u32(unsigned char *o, uint32_t v)
{
	o[0] = (unsigned char)(v >> 24);
	o[1] = (unsigned char)(v >> 16);
	o[2] = (unsigned char)(v >> 8);
	o[3] = (unsigned char)v;
	return o + 4;
}

static unsigned char *put_int(unsigned char *o, int64_t v)
{
	uint64_t u = (uint64_t)v;
	*o++ = FT_INT;
	o = put_u32(o, 8);
	for (int i = 7; i >= 0; i--)
		*o++ = (unsigned char)(u >> (8 * i));
	return o;
}

static unsigned char *put_fld(unsigned char *o, struct fld f)
{
	if (f.null) {
		*o++ = FT_NULL;
		return put_u32(o, 0);
	}
	*o++ = FT_TEXT;
	o = put_u32(o, (uint32_t)f.n);
	if (f.n)
		memcpy(o, f.p, f.n);
	return o + f.n;
}

static void to_hex(const unsigned char *md, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[AUDIT_HASH_HEX] = '\0';
}

/* SHA-256 of the tag, the nint integers and the ntext text fields, in that
 * order (the tag's NUL included), as hex into out. */
static int hash_fields(struct hasher *h, const char *tag, size_t taglen, const int64_t *ints,
                       int nint, const struct fld *texts, int ntext, char *out)
{
	size_t n = taglen + 1 + (size_t)nint * 13;
	for (int i = 0; i < ntext; i++) {
		if (texts[i].n > UINT32_MAX)
			return -1;
		n += 5 + texts[i].n;
	}
	if (hasher_reserve(h, n) < 0)
		return -1;
	unsigned char *o = h->buf;
	memcpy(o, tag, taglen + 1);
	o += taglen + 1;
	for (int i = 0; i < nint; i++)
		o = put_int(o, ints[i]);
	for (int i = 0; i < ntext; i++)
		o = put_fld(o, texts[i]);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (hasher_start(h) != 1 ||
	    EVP_DigestUpdate(h->ctx, h->buf, (size_t)(o - h->buf)) != 1 ||
	    EVP_DigestFinal_ex(h->ctx, md, &mdlen) != 1 || mdlen != 32)
		return -1;
	to_hex(md, out);
	return 0;
}

/* A record: seq, t_us, then actor, action, subject, reason, prev_hash. */
static int hash_record(struct hasher *h, int64_t seq, int64_t t_us, const struct fld *f5, char *out)
{
	const int64_t ints[2] = { seq, t_us };
	return hash_fields(h, record_tag, sizeof record_tag - 1, ints, 2, f5, 5, out);
}

int audit_hash(const struct audit_rec *rec, char *out)
{
	struct hasher h;
	if (hasher_init(&h) < 0) {
		hasher_fini(&h);
		return -1;
	}
	const struct fld f[5] = { fld_str(rec->actor), fld_str(rec->action), fld_str(rec->subject),
	                          fld_str(rec->reason), fld_str(rec->prev_hash) };
	int rc = hash_record(&h, rec->seq, rec->t_us, f, out);
	hasher_fini(&h);
	return rc;
}

/* ---- writing ------------------------------------------------------------- */

/* Who acts, by event kind (looked up by rec_kind_name, so that kinds the
 * engine gains map by name; an unknown one is RULE_GENERIC). */
enum actor_rule {
	RULE_GENERIC,     /* "health" when the detail starts with "health", else "engine" */
	RULE_SKIP,        /* not recorded */
	RULE_ENGINE,
	RULE_POLICY,      /* the scheduling policy's name */
	RULE_RELEASE,     /* "approved": operator; "released": policy; else engine */
	RULE_DRAIN,       /* "leave...": operator; else health */
	RULE_HEALTH,
	RULE_OPERATOR,
};

static const struct {
	const char *kind;
	enum actor_rule rule;
} kind_rules[] = {
	{ "submit", RULE_ENGINE }, { "end", RULE_ENGINE }, { "requeue", RULE_ENGINE },
	{ "start", RULE_POLICY }, { "hold", RULE_POLICY }, { "preempt", RULE_POLICY },
	{ "release", RULE_RELEASE },
	{ "drain", RULE_DRAIN }, { "resume", RULE_HEALTH },
	{ "fault", RULE_ENGINE }, { "repair", RULE_ENGINE },
	{ "join", RULE_OPERATOR }, { "leave", RULE_OPERATOR },
	{ "sample", RULE_SKIP }, { "sample_mark", RULE_SKIP },
	{ NULL, RULE_GENERIC },
};

struct audit_writer {
	sqlite3 *db;
	sqlite3_stmt *st;
	struct hasher h;
	int64_t seq;                          /* the last record's */
	char prev[AUDIT_HASH_HEX + 1];        /* the last record's hash */
	char hash[AUDIT_HASH_HEX + 1];        /* scratch: the new record's */
	char subject[32 + HL_NAME_MAX];
	uint8_t rule[REC_NKIND];
	bool failed;
	char err[512];
};

static int w_failf(struct audit_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int w_failf(struct audit_writer *w, const char *fmt, ...)
{
	if (!w->failed) {
		w->failed = true;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof w->err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

struct audit_writer *audit_writer_new(struct sqlite3 *db, char *err, size_t errlen)
{
	struct audit_writer *w = calloc(1, sizeof *w);
	if (!w) {
		failf(err, errlen, "audit log: out of memory");
		return NULL;
	}
	w->db = db;
	memcpy(w->prev, zero_hash, sizeof w->prev);
	if (hasher_init(&w->h) < 0) {
		failf(err, errlen, "audit log: cannot set up SHA-256 (OpenSSL EVP)");
		goto fail;
	}
	if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT, &w->st, NULL) != SQLITE_OK) {
		failf(err, errlen, "creating the audit tables: %s", sqlite3_errmsg(db));
		goto fail;
	}
	for (int k = 0; k < REC_NKIND; k++) {
		const char *name = rec_kind_name((enum rec_kind)k);
		w->rule[k] = k == REC_SAMPLE_MARK ? RULE_SKIP : RULE_GENERIC;
		for (int i = 0; kind_rules[i].kind && k != REC_SAMPLE_MARK; i++)
			if (strcmp(kind_rules[i].kind, name) == 0)
				w->rule[k] = (uint8_t)kind_rules[i].rule;
	}
	return w;

fail:
	audit_writer_free(w);
	return NULL;
}

void audit_writer_free(struct audit_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->st);
	hasher_fini(&w->h);
	free(w);
}

const char *audit_writer_error(const struct audit_writer *w)
{
	return w->failed ? w->err : NULL;
}

int64_t audit_writer_count(const struct audit_writer *w)
{
	return w->seq;
}

/* n bytes of s, cut back to a UTF-8 character boundary when it is longer than max. */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static int append(struct audit_writer *w, simtime t, const char *actor, const char *action,
                  const char *subject, size_t subject_len, const char *reason)
{
	if (w->failed)
		return -1;
	int64_t seq = w->seq + 1;
	struct fld f[5] = { fld_str(actor), fld_str(action), { subject, subject_len, false },
	                    fld_str(NULL), { w->prev, AUDIT_HASH_HEX, false } };
	if (reason)
		f[3] = (struct fld){ reason, utf8_cut(reason, AUDIT_REASON_MAX), false };
	if (hash_record(&w->h, seq, t, f, w->hash) < 0)
		return w_failf(w, "audit record %" PRId64 ": SHA-256 failed (OpenSSL EVP)", seq);
	sqlite3_stmt *st = w->st;
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_int64(st, 2, t);
	sqlite3_bind_text(st, 3, f[0].p, (int)f[0].n, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, f[1].p, (int)f[1].n, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, f[2].p, (int)f[2].n, SQLITE_STATIC);
	if (reason)
		sqlite3_bind_text(st, 6, f[3].p, (int)f[3].n, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, w->prev, AUDIT_HASH_HEX, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, w->hash, AUDIT_HASH_HEX, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return w_failf(w, "writing audit record %" PRId64 ": %s", seq, sqlite3_errmsg(w->db));
	w->seq = seq;
	memcpy(w->prev, w->hash, sizeof w->prev);
	return 0;
}

int audit_writer_append(struct audit_writer *w, simtime t, const char *actor, const char *action,
                        const char *subject, const char *reason)
{
	return append(w, t, actor, action, subject, strlen(subject), reason);
}

/* "PREFIX N" into buf, without printf (this runs once per event). */
static size_t put_prefixed_int(char *buf, const char *prefix, size_t plen, int64_t v)
{
	memcpy(buf, prefix, plen);
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[n++] = '-';
	size_t len = plen;
	while (n > 0)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

/* The subject: "job <trace id>", "node <name>", else "cluster". An id the
 * sim does not know (or no sim) is written "job #<index>" / "node #<index>". */
static size_t subject_of(struct audit_writer *w, const struct sim *s, int32_t job, int32_t node)
{
	char *b = w->subject;
	if (job >= 0) {
		if (s && s->jobs && job < s->njobs)
			return put_prefixed_int(b, "job ", 4, s->jobs[job].trace_id);
		return put_prefixed_int(b, "job #", 5, job);
	}
	if (node >= 0) {
		if (s && s->cl.nodes && node < s->cl.nnodes) {
			size_t n = strnlen(s->cl.nodes[node].name, sizeof s->cl.nodes[node].name);
			memcpy(b, "node ", 5);
			memcpy(b + 5, s->cl.nodes[node].name, n);
			b[5 + n] = '\0';
			return 5 + n;
		}
		return put_prefixed_int(b, "node #", 6, node);
	}
	memcpy(b, "cluster", 8);
	return 7;
}

static bool starts_with(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

int audit_writer_event(struct audit_writer *w, const struct sim *s, simtime t, enum rec_kind kind,
                       int32_t job, int32_t node, const char *detail)
{
	enum actor_rule rule = (unsigned)kind < REC_NKIND ? (enum actor_rule)w->rule[kind] : RULE_GENERIC;
	if (rule == RULE_SKIP)
		return 0;
	const char *policy = s && s->sched.name ? s->sched.name : "policy";
	const char *actor = "engine";
	switch (rule) {
	case RULE_SKIP:
	case RULE_ENGINE:
		break;
	case RULE_GENERIC:
		actor = starts_with(detail, "health") ? "health" : "engine";
		break;
	case RULE_POLICY:
		actor = policy;
		break;
	case RULE_RELEASE:
		actor = detail && strcmp(detail, "approved") == 0 ? "operator"
		        : detail && strcmp(detail, "released") == 0 ? policy : "engine";
		break;
	case RULE_DRAIN:
		actor = starts_with(detail, "leave") ? "operator" : "health";
		break;
	case RULE_HEALTH:
		actor = "health";
		break;
	case RULE_OPERATOR:
		actor = "operator";
		break;
	}
	size_t slen = subject_of(w, s, job, node);
	return append(w, t, actor, rec_kind_name(kind), w->subject, slen, detail);
}

int audit_writer_finish(struct audit_writer *w)
{
	if (w->failed)
		return -1;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->db, "INSERT INTO audit_head(seq, hash) VALUES(?,?)", -1,
	                       &st, NULL) != SQLITE_OK)
		return w_failf(w, "sealing the audit head: %s", sqlite3_errmsg(w->db));
	sqlite3_bind_int64(st, 1, w->seq);
	sqlite3_bind_text(st, 2, w->prev, AUDIT_HASH_HEX, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return w_failf(w, "sealing the audit head: %s", sqlite3_errmsg(w->db));
	return 0;
}

/* ---- reading records: the database or an archive ------------------------- */

/* A record as read: seq, t_us and actor, action, subject, reason,
 * prev_hash, hash. Pointers are valid until the next read. */
struct row {
	int64_t seq, t_us;
	struct fld f[6];
};
enum { F_ACTOR, F_ACTION, F_SUBJECT, F_REASON, F_PREV, F_HASH };
static const char *const fld_names[6] = { "actor", "action", "subject", "reason", "prev_hash", "hash" };

struct src {
	const char *path;
	sqlite3 *db;
	sqlite3_stmt *st;       /* the database ... */
	gzFile gz;              /* ... or an archive */
	char *line;
	size_t cap;
	int64_t lineno;
	json_t *obj;
};

static void src_close(struct src *s)
{
	sqlite3_finalize(s->st);
	if (s->gz)
		gzclose(s->gz);
	free(s->line);
	json_decref(s->obj);
	memset(s, 0, sizeof *s);
}

/* Names the record's place for a verdict. */
static void src_where(const struct src *s, char *buf, size_t len)
{
	if (s->gz)
		snprintf(buf, len, "%s line %" PRId64, s->path, s->lineno);
	else
		snprintf(buf, len, "%s", s->path);
}

static const char *sqlite_type_name(int t)
{
	switch (t) {
	case SQLITE_INTEGER: return "INTEGER";
	case SQLITE_FLOAT: return "REAL";
	case SQLITE_TEXT: return "TEXT";
	case SQLITE_BLOB: return "BLOB";
	default: return "NULL";
	}
}

/* Next database row: 1, 0 at the end, -1 error (err), -2 a field of the
 * wrong type (bad names it). */
static int src_next_db(struct src *s, struct row *r, char *bad, size_t badlen, char *err, size_t errlen)
{
	int rc = sqlite3_step(s->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return failf(err, errlen, "%s: reading the audit table: %s", s->path, sqlite3_errmsg(s->db));
	r->seq = sqlite3_column_int64(s->st, 0);
	int tt = sqlite3_column_type(s->st, 1);
	r->t_us = sqlite3_column_int64(s->st, 1);
	if (tt != SQLITE_INTEGER) {
		snprintf(bad, badlen, "t_us is %s, expected INTEGER", sqlite_type_name(tt));
		return -2;
	}
	for (int i = 0; i < 6; i++) {
		int t = sqlite3_column_type(s->st, 2 + i);
		const char *p = (const char *)sqlite3_column_text(s->st, 2 + i);
		r->f[i] = (struct fld){ p, (size_t)sqlite3_column_bytes(s->st, 2 + i), t == SQLITE_NULL };
		if (t != SQLITE_TEXT && !(t == SQLITE_NULL && i == F_REASON)) {
			snprintf(bad, badlen, "%s is %s, expected TEXT", fld_names[i], sqlite_type_name(t));
			return -2;
		}
	}
	return 1;
}

/* One line of an archive into s->line (grown as needed); 0 at the end. */
static int read_line(struct src *s, size_t *len, char *err, size_t errlen)
{
	size_t n = 0;
	for (;;) {
		if (s->cap - n < 2) {
			size_t cap = s->cap ? 2 * s->cap : 4096;
			char *p = realloc(s->line, cap);
			if (!p)
				return failf(err, errlen, "%s: out of memory", s->path);
			s->line = p;
			s->cap = cap;
		}
		if (!gzgets(s->gz, s->line + n, (int)(s->cap - n))) {
			int zerr = 0;
			const char *msg = gzerror(s->gz, &zerr);
			if (zerr != Z_OK && zerr != Z_BUF_ERROR)
				return failf(err, errlen, "%s: line %" PRId64 ": %s", s->path, s->lineno + 1, msg);
			break;
		}
		n += strlen(s->line + n);
		if (n > 0 && s->line[n - 1] == '\n')
			break;
	}
	if (n == 0)
		return 0;
	s->lineno++;
	if (s->line[n - 1] == '\n')
		s->line[--n] = '\0';
	*len = n;
	return 1;
}

static bool json_int_field(json_t *o, const char *k, int64_t *v)
{
	json_t *x = json_object_get(o, k);
	if (!json_is_integer(x))
		return false;
	*v = json_integer_value(x);
	return true;
}

/* Next archive record: as src_next_db. */
static int src_next_archive(struct src *s, struct row *r, char *bad, size_t badlen, char *err,
                            size_t errlen)
{
	size_t n = 0;
	int rc;
	do {
		rc = read_line(s, &n, err, errlen);
		if (rc <= 0)
			return rc;
	} while (strspn(s->line, " \t\r") == n);
	json_decref(s->obj);
	json_error_t je;
	s->obj = json_loadb(s->line, n, 0, &je);
	r->seq = 0;
	if (!json_is_object(s->obj)) {
		snprintf(bad, badlen, "not a JSON object: %s", s->obj ? "" : je.text);
		return -2;
	}
	if (!json_int_field(s->obj, "seq", &r->seq)) {
		snprintf(bad, badlen, "no integer \"seq\"");
		return -2;
	}
	if (!json_int_field(s->obj, "t_us", &r->t_us)) {
		snprintf(bad, badlen, "no integer \"t_us\"");
		return -2;
	}
	for (int i = 0; i < 6; i++) {
		json_t *x = json_object_get(s->obj, fld_names[i]);
		if (json_is_string(x)) {
			r->f[i] = (struct fld){ json_string_value(x), json_string_length(x), false };
		} else if (json_is_null(x) && i == F_REASON) {
			r->f[i] = (struct fld){ NULL, 0, true };
		} else {
			snprintf(bad, badlen, "no string \"%s\"", fld_names[i]);
			return -2;
		}
	}
	return 1;
}

static int src_next(struct src *s, struct row *r, char *bad, size_t badlen, char *err, size_t errlen)
{
	return s->gz ? src_next_archive(s, r, bad, badlen, err, errlen)
	             : src_next_db(s, r, bad, badlen, err, errlen);
}

/* ---- anchors --------------------------------------------------------------- */

struct anchor {
	int64_t id, seq, count, cut_us;
	char hash[AUDIT_HASH_HEX + 1], prev[AUDIT_HASH_HEX + 1], ahash[AUDIT_HASH_HEX + 1];
	char *archive, *created;
};

struct anchors {
	struct anchor *a;
	int32_t n;
};

static void anchors_free(struct anchors *as)
{
	for (int32_t i = 0; i < as->n; i++) {
		free(as->a[i].archive);
		free(as->a[i].created);
	}
	free(as->a);
	memset(as, 0, sizeof *as);
}

static int anchor_hash(struct hasher *h, int64_t id, int64_t seq, const char *hash, int64_t count,
                       int64_t cut_us, const char *archive, const char *created, const char *prev,
                       char *out)
{
	const int64_t ints[4] = { id, seq, count, cut_us };
	const struct fld f[4] = { fld_str(hash), fld_str(archive), fld_str(created), fld_str(prev) };
	return hash_fields(h, anchor_tag, sizeof anchor_tag - 1, ints, 4, f, 4, out);
}

static const struct anchor *anchor_at(const struct anchors *as, int64_t seq)
{
	for (int32_t i = 0; i < as->n; i++)
		if (as->a[i].seq == seq)
			return &as->a[i];
	return NULL;
}

static int verdict(struct audit_verdict *v, enum audit_break what, int64_t seq, const char *source,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int verdict(struct audit_verdict *v, enum audit_break what, int64_t seq, const char *source,
                   const char *fmt, ...)
{
	v->what = what;
	v->seq = seq;
	snprintf(v->source, sizeof v->source, "%s", source);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof v->detail, fmt, ap);
	va_end(ap);
	return 0;
}

/* Reads and checks the anchors: ids 1, 2, ..., each linked to the one
 * before by prev_anchor and sealed by anchor_hash, seqs increasing by
 * their counts. 0 (a break goes to v), or -1 with err. */
static int anchors_load(sqlite3 *db, const char *path, struct hasher *h, struct anchors *as,
                        struct audit_verdict *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, anchors_sql, -1, &st, NULL) != SQLITE_OK)
		return failf(err, errlen, "%s: reading audit_anchor: %s", path, sqlite3_errmsg(db));
	int rc;
	char prev[AUDIT_HASH_HEX + 1];   /* a copy: as->a moves as it grows */
	memcpy(prev, zero_hash, sizeof prev);
	int64_t prev_seq = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct anchor *p = realloc(as->a, (size_t)(as->n + 1) * sizeof *p);
		if (!p) {
			sqlite3_finalize(st);
			return failf(err, errlen, "%s: out of memory", path);
		}
		as->a = p;
		struct anchor *a = &as->a[as->n++];
		memset(a, 0, sizeof *a);
		static const int types[9] = { SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_TEXT, SQLITE_INTEGER,
		                              SQLITE_INTEGER, SQLITE_TEXT, SQLITE_TEXT, SQLITE_TEXT, SQLITE_TEXT };
		static const char *const names[9] = { "id", "seq", "hash", "count", "cut_us", "archive",
		                                       "created", "prev_anchor", "anchor_hash" };
		a->id = sqlite3_column_int64(st, 0);
		a->seq = sqlite3_column_int64(st, 1);
		for (int i = 0; i < 9; i++)
			if (sqlite3_column_type(st, i) != types[i]) {
				sqlite3_finalize(st);
				return verdict(v, AUDIT_BAD_ANCHOR, a->seq, path, "anchor %" PRId64 ": %s is %s",
				               a->id, names[i], sqlite_type_name(sqlite3_column_type(st, i)));
			}
		a->count = sqlite3_column_int64(st, 3);
		a->cut_us = sqlite3_column_int64(st, 4);
		snprintf(a->hash, sizeof a->hash, "%s", (const char *)sqlite3_column_text(st, 2));
		snprintf(a->prev, sizeof a->prev, "%s", (const char *)sqlite3_column_text(st, 7));
		snprintf(a->ahash, sizeof a->ahash, "%s", (const char *)sqlite3_column_text(st, 8));
		a->archive = strdup((const char *)sqlite3_column_text(st, 5));
		a->created = strdup((const char *)sqlite3_column_text(st, 6));
		if (!a->archive || !a->created) {
			sqlite3_finalize(st);
			return failf(err, errlen, "%s: out of memory", path);
		}
		char want[AUDIT_HASH_HEX + 1];
		const char *why = NULL;
		if (a->id != as->n)
			why = "anchor ids are not 1, 2, 3, ...";
		else if (strcmp(a->prev, prev) != 0)
			why = "prev_anchor is not the previous anchor's anchor_hash";
		else if (anchor_hash(h, a->id, a->seq, (const char *)sqlite3_column_text(st, 2), a->count,
		                     a->cut_us, a->archive, a->created,
		                     (const char *)sqlite3_column_text(st, 7), want) < 0)
			why = "SHA-256 failed";
		else if (strcmp(want, (const char *)sqlite3_column_text(st, 8)) != 0)
			why = "anchor_hash mismatch: a field of the anchor was altered";
		else if (a->seq <= prev_seq || a->count != a->seq - prev_seq)
			why = "its seq and count do not follow the previous anchor";
		if (why) {
			sqlite3_finalize(st);
			return verdict(v, AUDIT_BAD_ANCHOR, a->seq, path, "anchor %" PRId64 ": %s", a->id, why);
		}
		memcpy(prev, a->ahash, sizeof prev);
		prev_seq = a->seq;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return failf(err, errlen, "%s: reading audit_anchor: %s", path, sqlite3_errmsg(db));
	return 0;
}

/* ---- verifying ------------------------------------------------------------ */

const char *audit_break_name(enum audit_break b)
{
	switch (b) {
	case AUDIT_OK: return "ok";
	case AUDIT_GAP: return "gap in seq";
	case AUDIT_PREV_MISMATCH: return "prev_hash mismatch";
	case AUDIT_HASH_MISMATCH: return "hash mismatch";
	case AUDIT_BAD_FIELD: return "bad field";
	case AUDIT_BAD_HEAD: return "head mismatch";
	case AUDIT_BAD_ANCHOR: return "anchor mismatch";
	}
	return "?";
}

static int check_tables(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	static const char *const tables[] = { "audit", "audit_anchor", "audit_head", NULL };
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                       -1, &st, NULL) != SQLITE_OK)
		return failf(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
	for (int i = 0; tables[i]; i++) {
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(st);
			if (rc == SQLITE_DONE)
				return failf(err, errlen, "%s: no table '%s': not a hetlab results file with an"
				             " audit log (written by a hetlab before the audit log?)", path, tables[i]);
			return failf(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/* The walk over the chain, one record at a time. */
struct walk {
	struct audit_verdict *v;
	const struct anchors *as;
	struct hasher *h;
	bool started, db_only;
	int64_t expect;                     /* the next seq */
	char prev[AUDIT_HASH_HEX + 1];      /* the last record's hash */
};

/* Checks one record; 1 when it holds, 0 when it broke the chain (v says how). */
static int walk_one(struct walk *w, const struct row *r, const char *where)
{
	struct audit_verdict *v = w->v;
	const struct anchors *as = w->as;
	const struct anchor *latest = as->n ? &as->a[as->n - 1] : NULL;
	if (!w->started) {
		const struct anchor *from = r->seq > 1 ? anchor_at(as, r->seq - 1) : NULL;
		if (w->db_only && latest && r->seq <= latest->seq) {
			verdict(v, AUDIT_BAD_ANCHOR, r->seq, where, "anchor %" PRId64 " sealed the records up to"
			        " seq %" PRId64 " as pruned, but seq %" PRId64 " is still here",
			        latest->id, latest->seq, r->seq);
			return 0;
		}
		if (w->db_only && latest && r->seq > latest->seq + 1) {
			verdict(v, AUDIT_GAP, latest->seq + 1, where, "record %" PRId64 " is missing: the chain"
			        " should continue from anchor %" PRId64 " (seq %" PRId64 "), the first record is"
			        " seq %" PRId64, latest->seq + 1, latest->id, latest->seq, r->seq);
			return 0;
		}
		if (r->seq < 1) {
			verdict(v, AUDIT_GAP, r->seq, where, "seq %" PRId64 " precedes the chain's first"
			        " record (seq 1)", r->seq);
			return 0;
		}
		if (r->seq != 1 && !from) {
			verdict(v, AUDIT_GAP, 1, where, "records 1..%" PRId64 " are missing: the chain starts"
			        " at seq %" PRId64 " and no anchor seals seq %" PRId64, r->seq - 1, r->seq,
			        r->seq - 1);
			return 0;
		}
		memcpy(w->prev, from ? from->hash : zero_hash, sizeof w->prev);
		v->from_anchor = from ? (int32_t)from->id : 0;
		v->first_seq = r->seq;
		w->started = true;
	} else if (r->seq > w->expect) {
		const struct anchor *a = NULL;
		for (int32_t i = 0; i < as->n && !a; i++)
			if (as->a[i].seq >= w->expect && as->a[i].seq - as->a[i].count < w->expect)
				a = &as->a[i];
		verdict(v, AUDIT_GAP, w->expect, where, "record %" PRId64 " is missing (the next is seq %"
		        PRId64 ")%s%s%s", w->expect, r->seq, a ? "; it was pruned to " : "",
		        a ? a->archive : "", a ? ": pass that archive with --archive" : "");
		return 0;
	} else if (r->seq < w->expect) {
		verdict(v, AUDIT_GAP, r->seq, where, "seq %" PRId64 " follows seq %" PRId64
		        ": out of order or repeated", r->seq, w->expect - 1);
		return 0;
	}
	if (r->f[F_PREV].n != AUDIT_HASH_HEX || memcmp(r->f[F_PREV].p, w->prev, AUDIT_HASH_HEX) != 0) {
		verdict(v, AUDIT_PREV_MISMATCH, r->seq, where, "prev_hash %.*s is not the hash of the"
		        " record before (%s)", (int)(r->f[F_PREV].n > 80 ? 80 : r->f[F_PREV].n),
		        r->f[F_PREV].p ? r->f[F_PREV].p : "", w->prev);
		return 0;
	}
	char want[AUDIT_HASH_HEX + 1];
	if (hash_record(w->h, r->seq, r->t_us, r->f, want) < 0) {
		verdict(v, AUDIT_HASH_MISMATCH, r->seq, where, "SHA-256 failed (OpenSSL EVP)");
		return 0;
	}
	if (r->f[F_HASH].n != AUDIT_HASH_HEX || memcmp(r->f[F_HASH].p, want, AUDIT_HASH_HEX) != 0) {
		verdict(v, AUDIT_HASH_MISMATCH, r->seq, where, "stored hash %.*s, fields hash to %s: the"
		        " record was altered", (int)(r->f[F_HASH].n > 80 ? 80 : r->f[F_HASH].n),
		        r->f[F_HASH].p, want);
		return 0;
	}
	const struct anchor *a = anchor_at(as, r->seq);
	if (a && strcmp(a->hash, want) != 0) {
		verdict(v, AUDIT_BAD_ANCHOR, r->seq, where, "anchor %" PRId64 " sealed seq %" PRId64
		        " with hash %s, the record hashes to %s", a->id, a->seq, a->hash, want);
		return 0;
	}
	memcpy(w->prev, want, sizeof w->prev);
	w->expect = r->seq + 1;
	v->last_seq = r->seq;
	v->count++;
	return 1;
}

/* Walks one source to its end or the first break. 0 or -1 (err). */
static int walk_src(struct walk *w, struct src *s, char *err, size_t errlen)
{
	struct row r;
	char bad[256], where[600];
	int rc;
	while ((rc = src_next(s, &r, bad, sizeof bad, err, errlen)) != 0) {
		if (rc == -1)
			return -1;
		src_where(s, where, sizeof where);
		if (rc == -2)
			return verdict(w->v, AUDIT_BAD_FIELD, r.seq, where, "%s", bad);
		if (!walk_one(w, &r, where))
			return 0;
		if (s->gz)
			w->v->narchived++;
	}
	return 0;
}

/* The end of the chain against audit_head. */
static int check_head(sqlite3 *db, const char *path, struct walk *w, char *err, size_t errlen)
{
	struct audit_verdict *v = w->v;
	const struct anchors *as = w->as;
	int64_t last = w->started ? v->last_seq : as->n ? as->a[as->n - 1].seq : 0;
	const char *last_hash = w->started ? w->prev : as->n ? as->a[as->n - 1].hash : zero_hash;
	snprintf(v->head, sizeof v->head, "%s", last_hash);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT seq, hash FROM audit_head", -1, &st, NULL) != SQLITE_OK)
		return failf(err, errlen, "%s: reading audit_head: %s", path, sqlite3_errmsg(db));
	int rc = sqlite3_step(st);
	int64_t hseq = 0;
	char hhash[AUDIT_HASH_HEX + 1] = "";
	bool typed = rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
	             sqlite3_column_type(st, 1) == SQLITE_TEXT;
	if (typed) {
		hseq = sqlite3_column_int64(st, 0);
		snprintf(hhash, sizeof hhash, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	if (!typed || sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return failf(err, errlen, "%s: reading audit_head: %s", path, sqlite3_errmsg(db));
		return verdict(v, AUDIT_BAD_HEAD, last, path, "audit_head does not hold exactly one"
		               " (seq INTEGER, hash TEXT) row");
	}
	sqlite3_finalize(st);
	if (last < hseq)
		return verdict(v, AUDIT_BAD_HEAD, last + 1, path, "records %" PRId64 "..%" PRId64
		               " are missing at the end (the sealed head is seq %" PRId64 ")", last + 1,
		               hseq, hseq);
	if (last > hseq)
		return verdict(v, AUDIT_BAD_HEAD, hseq + 1, path, "seq %" PRId64 "..%" PRId64 " lie beyond"
		               " the sealed head (seq %" PRId64 "): appended after the run", hseq + 1, last,
		               hseq);
	if (strcmp(hhash, last_hash) != 0)
		return verdict(v, AUDIT_BAD_HEAD, last, path, "the last record hashes to %s, the sealed"
		               " head says %s", last_hash, hhash);
	return 0;
}

/* The verification on an open database. */
static int verify_db(sqlite3 *db, const char *path, const char *const *archives, int narchives,
                     struct audit_verdict *v, char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	snprintf(v->source, sizeof v->source, "%s", path);
	if (check_tables(db, path, err, errlen) < 0)
		return -1;
	struct hasher h;
	struct anchors as = { 0 };
	int rc = -1;
	if (hasher_init(&h) < 0) {
		failf(err, errlen, "cannot set up SHA-256 (OpenSSL EVP)");
		goto out;
	}
	if (anchors_load(db, path, &h, &as, v, err, errlen) < 0)
		goto out;
	v->nanchors = as.n;
	if (v->what != AUDIT_OK) {
		rc = 0;
		goto out;
	}
	struct walk w = { .v = v, .as = &as, .h = &h, .db_only = narchives == 0 };
	for (int i = 0; i < narchives && v->what == AUDIT_OK; i++) {
		struct src s = { .path = archives[i] };
		errno = 0;
		if (!(s.gz = gzopen(archives[i], "rb"))) {
			failf(err, errlen, "%s: %s", archives[i], errno ? strerror(errno) : "cannot open");
			goto out;
		}
		int r = walk_src(&w, &s, err, errlen);
		src_close(&s);
		if (r < 0)
			goto out;
	}
	if (v->what == AUDIT_OK) {
		struct src s = { .path = path, .db = db };
		if (sqlite3_prepare_v2(db, "SELECT " ROW_COLUMNS " FROM audit ORDER BY seq", -1, &s.st, NULL) != SQLITE_OK) {
			failf(err, errlen, "%s: reading the audit table: %s", path, sqlite3_errmsg(db));
			goto out;
		}
		int r = walk_src(&w, &s, err, errlen);
		src_close(&s);
		if (r < 0)
			goto out;
	}
	if (v->what == AUDIT_OK && check_head(db, path, &w, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	anchors_free(&as);
	hasher_fini(&h);
	return rc;
}

static int db_open(const char *path, bool write, sqlite3 **db, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(path, db, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		failf(err, errlen, "%s: cannot open: %s", path, *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, 5000);
	return 0;
}

int audit_verify(const char *db_path, const char *const *archives, int narchives,
                 struct audit_verdict *v, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	if (db_open(db_path, false, &db, err, errlen) < 0)
		return -1;
	int rc = verify_db(db, db_path, archives, narchives, v, err, errlen);
	sqlite3_close(db);
	return rc;
}

/* ---- JSON Lines output ---------------------------------------------------- */

/* One record as a JSON object on one line. 0, or -1 with err. */
static int write_json_row(gzFile out, const char *out_name, const struct row *r, char *err, size_t errlen)
{
	json_t *o = json_object();
	if (!o)
		return failf(err, errlen, "%s: out of memory", out_name);
	int rc = -1;
	json_object_set_new(o, "seq", json_integer(r->seq));
	json_object_set_new(o, "t_us", json_integer(r->t_us));
	for (int i = 0; i < 6; i++) {
		json_t *s = r->f[i].null ? json_null() : json_stringn(r->f[i].p, r->f[i].n);
		if (!s) {
			failf(err, errlen, "seq %" PRId64 ": %s is not valid UTF-8", r->seq, fld_names[i]);
			goto out;
		}
		json_object_set_new(o, fld_names[i], s);
	}
	char *text = json_dumps(o, JSON_COMPACT);
	if (!text) {
		failf(err, errlen, "%s: out of memory", out_name);
		goto out;
	}
	size_t n = strlen(text);
	if (gzwrite(out, text, (unsigned)n) != (int)n || gzputc(out, '\n') != '\n') {
		int zerr = 0;
		failf(err, errlen, "%s: cannot write: %s", out_name, gzerror(out, &zerr));
	} else {
		rc = 0;
	}
	free(text);
out:
	json_decref(o);
	return rc;
}

/* Writes the rows of st (rows_sql's columns) to out. */
static int write_rows(sqlite3 *db, sqlite3_stmt *st, const char *db_path, gzFile out,
                      const char *out_name, int64_t *count, char *err, size_t errlen)
{
	struct src s = { .path = db_path, .db = db, .st = st };
	struct row r;
	char bad[256];
	int rc;
	*count = 0;
	while ((rc = src_next_db(&s, &r, bad, sizeof bad, err, errlen)) != 0) {
		if (rc == -2)
			return failf(err, errlen, "%s: seq %" PRId64 ": %s", db_path, r.seq, bad);
		if (rc < 0 || write_json_row(out, out_name, &r, err, errlen) < 0)
			return -1;
		(*count)++;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *str_dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_dupf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

int audit_export(const char *db_path, const char *out_path, int64_t *count, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	gzFile out = NULL;
	char *tmp = NULL;
	int rc = -1;
	*count = 0;
	if (db_open(db_path, false, &db, err, errlen) < 0)
		return -1;
	if (check_tables(db, db_path, err, errlen) < 0)
		goto close_db;
	if (sqlite3_prepare_v2(db, "SELECT " ROW_COLUMNS " FROM audit ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: reading the audit table: %s", db_path, sqlite3_errmsg(db));
		goto close_db;
	}
	const char *name = out_path ? out_path : "standard output";
	const char *mode = out_path && ends_with(out_path, ".gz") ? "wb" : "wbT";
	if (out_path) {
		if (!(tmp = str_dupf("%s.tmp-%ld", out_path, (long)getpid()))) {
			failf(err, errlen, "%s: out of memory", out_path);
			goto close_st;
		}
		errno = 0;
		out = gzopen(tmp, mode);
	} else {
		fflush(stdout);
		int fd = dup(STDOUT_FILENO);
		out = fd >= 0 ? gzdopen(fd, mode) : NULL;
		if (!out && fd >= 0)
			close(fd);
	}
	if (!out) {
		failf(err, errlen, "%s: cannot create: %s", out_path ? tmp : name,
		      errno ? strerror(errno) : "out of memory");
		goto close_st;
	}
	int wr = write_rows(db, st, db_path, out, name, count, err, errlen);
	int cl = gzclose(out);
	if (wr < 0)
		goto remove_tmp;
	if (cl != Z_OK) {
		failf(err, errlen, "%s: cannot write (closing failed)", name);
		goto remove_tmp;
	}
	if (out_path && rename(tmp, out_path) < 0) {
		failf(err, errlen, "cannot rename %s into place: %s", tmp, strerror(errno));
		goto remove_tmp;
	}
	rc = 0;
	goto close_st;
remove_tmp:
	if (tmp)
		unlink(tmp);
close_st:
	sqlite3_finalize(st);
	free(tmp);
close_db:
	sqlite3_close(db);
	return rc;
}

/* ---- retention ------------------------------------------------------------ */

static int exec_sql(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return failf(err, errlen, "%s: %s: %s", path, sql, sqlite3_errmsg(db));
	return 0;
}

/* One integer of a one-row query (with up to one bound integer); NULL is
 * `dflt`. 0 or -1. */
static int query_int(sqlite3 *db, const char *path, const char *sql, int64_t arg, int64_t dflt,
                     int64_t *out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, arg);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_type(st, 0) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	return 0;
}

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}

/* Writes records first..last to the archive (a temporary file linked into
 * place without overwriting). 0 or -1. */
static int write_archive(sqlite3 *db, const char *db_path, const char *archive, int64_t last,
                         int64_t *count, char *err, size_t errlen)
{
	char *tmp = str_dupf("%s.tmp-%ld", archive, (long)getpid());
	if (!tmp)
		return failf(err, errlen, "%s: out of memory", archive);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT " ROW_COLUMNS " FROM audit WHERE seq <= ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: reading the audit table: %s", db_path, sqlite3_errmsg(db));
		goto free_tmp;
	}
	sqlite3_bind_int64(st, 1, last);
	errno = 0;
	gzFile out = gzopen(tmp, "wb");
	if (!out) {
		failf(err, errlen, "%s: cannot create: %s", tmp, errno ? strerror(errno) : "out of memory");
		goto finalize;
	}
	int wr = write_rows(db, st, db_path, out, archive, count, err, errlen);
	int cl = gzclose(out);
	if (wr < 0)
		goto unlink_tmp;
	if (cl != Z_OK) {
		failf(err, errlen, "%s: cannot write (closing failed)", archive);
		goto unlink_tmp;
	}
	/* link() never replaces an existing file: an archive is never
	 * overwritten. Where the file system has no hard links, rename() after
	 * the caller's check that the name is free. */
	if (link(tmp, archive) < 0 &&
	    ((errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) || rename(tmp, archive) < 0)) {
		failf(err, errlen, "%s: cannot create the archive: %s", archive, strerror(errno));
		goto unlink_tmp;
	}
	rc = 0;
unlink_tmp:
	unlink(tmp);
finalize:
	sqlite3_finalize(st);
free_tmp:
	free(tmp);
	return rc;
}

/* The anchor: the last pruned record's seq and hash, sealed and linked to
 * the anchor before it. Inside the caller's transaction. 0 or -1. */
static int seal_anchor(sqlite3 *db, const char *db_path, const char *archive,
                       struct audit_prune_result *res, char *err, size_t errlen)
{
	struct hasher h;
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	char prev[AUDIT_HASH_HEX + 1] = "", created[32], ahash[AUDIT_HASH_HEX + 1];
	int rc = -1;
	if (hasher_init(&h) < 0) {
		failf(err, errlen, "cannot set up SHA-256 (OpenSSL EVP)");
		goto out;
	}
	if (query_int(db, db_path, "SELECT max(id) FROM audit_anchor", 0, 0, &id, err, errlen) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT hash FROM audit WHERE seq = ?1),"
	                       " (SELECT anchor_hash FROM audit_anchor ORDER BY id DESC LIMIT 1)",
	                       -1, &st, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, res->last_seq);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_TEXT) {
		failf(err, errlen, "%s: sealing the anchor: no hash for seq %" PRId64, db_path, res->last_seq);
		goto out;
	}
	snprintf(res->hash, sizeof res->hash, "%s", (const char *)sqlite3_column_text(st, 0));
	const char *pa = (const char *)sqlite3_column_text(st, 1);
	snprintf(prev, sizeof prev, "%s", pa ? pa : zero_hash);
	sqlite3_finalize(st);
	st = NULL;
	id++;
	utc_now(created, sizeof created);
	if (anchor_hash(&h, id, res->last_seq, res->hash, res->count, res->cut_us, archive, created,
	                prev, ahash) < 0) {
		failf(err, errlen, "%s: sealing the anchor: SHA-256 failed (OpenSSL EVP)", db_path);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO audit_anchor(id, seq, hash, count, cut_us, archive,"
	                       " created, prev_anchor, anchor_hash) VALUES(?,?,?,?,?,?,?,?,?)", -1, &st,
	                       NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, res->last_seq);
	sqlite3_bind_text(st, 3, res->hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, res->count);
	sqlite3_bind_int64(st, 5, res->cut_us);
	sqlite3_bind_text(st, 6, archive, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, created, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, prev, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, ahash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	res->anchor_id = (int32_t)id;
	rc = 0;
out:
	sqlite3_finalize(st);
	hasher_fini(&h);
	return rc;
}

int audit_prune(const char *db_path, const struct audit_prune_opts *o, struct audit_prune_result *res,
                char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (!(o->days >= AUDIT_MIN_RETENTION_DAYS) || !isfinite(o->days) || o->days > 1e6)
		return failf(err, errlen, "a retention of %g days is refused: audit records are kept at"
		             " least %d days (about six months); the default is %d", o->days,
		             AUDIT_MIN_RETENTION_DAYS, AUDIT_DEFAULT_RETENTION_DAYS);
	sqlite3 *db = NULL;
	if (db_open(db_path, true, &db, err, errlen) < 0)
		return -1;
	char *archive = NULL;
	int rc = -1;
	bool archived = false;
	/* Taken now, so that nothing changes between the checks and the delete. */
	if (exec_sql(db, db_path, "BEGIN IMMEDIATE", err, errlen) < 0)
		goto close_db;
	struct audit_verdict v;
	if (verify_db(db, db_path, NULL, 0, &v, err, errlen) < 0)
		goto rollback;
	if (v.what != AUDIT_OK) {
		failf(err, errlen, "%s: refusing to prune a broken audit chain: seq %" PRId64 ": %s: %s"
		      " (see hetlab audit verify)", db_path, v.seq, audit_break_name(v.what), v.detail);
		goto rollback;
	}
	/* The records to go: the longest prefix of the chain older than the
	 * cut, so that no record younger than it is ever pruned. */
	int64_t first = 0, last = 0;
	if (query_int(db, db_path, "SELECT max(t_us) FROM audit", 0, -1, &res->newest_us, err, errlen) < 0)
		goto rollback;
	res->cut_us = res->newest_us - (simtime)llround(o->days * (double)SIMTIME_DAY);
	if (res->newest_us >= 0 &&
	    (query_int(db, db_path, "SELECT min(seq) FROM audit", 0, 0, &first, err, errlen) < 0 ||
	     query_int(db, db_path, "SELECT min(seq) - 1 FROM audit WHERE t_us >= ?", res->cut_us, 0,
	               &last, err, errlen) < 0))
		goto rollback;
	if (res->newest_us < 0 || last < first) {
		rc = 0;   /* nothing old enough, or no record at all */
		goto rollback;
	}
	if (o->archive) {
		archive = strdup(o->archive);
	} else {
		size_t n = strlen(db_path) - (ends_with(db_path, ".db") ? 3 : 0);
		archive = str_dupf("%.*s-audit-%" PRId64 "-%" PRId64 ".jsonl.gz", (int)n, db_path, first, last);
	}
	if (!archive) {
		failf(err, errlen, "out of memory");
		goto rollback;
	}
	if (access(archive, F_OK) == 0) {
		failf(err, errlen, "%s: the archive exists already; name another with --archive", archive);
		goto rollback;
	}
	if (write_archive(db, db_path, archive, last, &res->count, err, errlen) < 0)
		goto rollback;
	archived = true;
	if (res->count != last - first + 1) {
		failf(err, errlen, "%s: archived %" PRId64 " records, expected %" PRId64, archive,
		      res->count, last - first + 1);
		goto rollback;
	}
	res->first_seq = first;
	res->last_seq = last;
	char del[96];
	snprintf(del, sizeof del, "DELETE FROM audit WHERE seq <= %" PRId64, last);
	if (seal_anchor(db, db_path, archive, res, err, errlen) < 0 ||
	    exec_sql(db, db_path, del, err, errlen) < 0 || exec_sql(db, db_path, "COMMIT", err, errlen) < 0)
		goto rollback;
	snprintf(res->archive, sizeof res->archive, "%s", archive);
	rc = 0;
	goto close_db;

rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (archived)
		unlink(archive);
	if (rc < 0)
		memset(res, 0, sizeof *res);
close_db:
	free(archive);
	sqlite3_close(db);
	return rc;
}
