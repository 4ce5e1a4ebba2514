/* hetlab audit verify|prune|export — the results file's hash-chained audit
 * log (analysis/audit.h, docs/audit.md). */
#include "cli/cmd.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/audit.h"
#include "analysis/auditkey.h"
#include "sim/simtime.h"

#define MAX_ARCHIVES 256

static const char usage[] =
	"usage: hetlab audit verify [--archive FILE.jsonl.gz]... [--key FILE | --pubkey FILE]\n"
	"                           [--expect-head HASH] RUN.DB\n"
	"       hetlab audit prune RUN.DB [--older-than DAYS | --before DAYS] [--archive FILE.jsonl.gz]\n"
	"                          [--key FILE]\n"
	"       hetlab audit export RUN.DB [--out FILE.jsonl]\n";

/* The value of option argv[*i] ("--opt V" or "--opt=V"); NULL when it is
 * not that option. Sets *missing when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, int *missing)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];
	if (strncmp(a, opt, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hetlab audit: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

/* Loads --key / --pubkey FILE; NULL after printing why. */
static struct audit_key *load_key(const char *path, bool public_ok)
{
	char err[1024];
	struct audit_key *k = audit_key_load(path, public_ok, err, sizeof err);
	if (!k)
		fprintf(stderr, "hetlab audit: %s\n", err);
	return k;
}

static bool is_hex_hash(const char *s)
{
	size_t n = strlen(s);
	return n == AUDIT_HASH_HEX && strspn(s, "0123456789abcdefABCDEF") == n;
}

static int print_verdict(const char *db, const struct audit_verdict *v, int narchives)
{
	if (v->what != AUDIT_OK) {
		printf("%s: audit chain BROKEN", db);
		if (v->seq > 0)
			printf(" at seq %" PRId64, v->seq);
		printf(": %s: %s\n", audit_break_name(v->what), v->detail);
		if (strcmp(v->source, db) != 0)
			printf("  in %s\n", v->source);
		if (v->count > 0)
			printf("  (%" PRId64 " records before it verified)\n", v->count);
		return 1;
	}
	printf("%s: audit chain OK: %" PRId64 " records", db, v->count);
	if (v->count > 0)
		printf(", seq %" PRId64 "..%" PRId64, v->first_seq, v->last_seq);
	if (narchives > 0)
		printf(" (%" PRId64 " from %d archive%s)", v->narchived, narchives, narchives > 1 ? "s" : "");
	printf("\n");
	if (v->from_anchor > 0)
		printf("  continues from anchor %d (the records before were pruned)\n", v->from_anchor);
	if (v->nanchors > 0)
		printf("  %d anchor%s intact\n", v->nanchors, v->nanchors > 1 ? "s" : "");
	printf("  %d table%s sealed (%" PRId64 " rows), level %s\n", v->ntables,
	       v->ntables == 1 ? "" : "s", v->sealed_rows, v->level);
	if (v->key_id[0])
		printf("  head authenticated by %s: %s\n", v->key_id,
		       v->key_checked ? "checked" : "not checked (give --key or --pubkey)");
	else
		printf("  head not authenticated (written without a key)\n");
	printf("  head %s\n", v->head);
	return 0;
}

static int audit_verify_cmd(int argc, char **argv)
{
	const char *db = NULL, *keyfile = NULL, *pubfile = NULL, *expect = NULL;
	const char *archives[MAX_ARCHIVES];
	int narchives = 0;
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		if ((v = opt_value(argc, argv, &i, "--archive", &missing))) {
			if (narchives == MAX_ARCHIVES)
				return usage_error("at most 256 archives (%s)", v);
			archives[narchives++] = v;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--key", &missing))) {
			keyfile = v;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--pubkey", &missing))) {
			pubfile = v;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--expect-head", &missing))) {
			if (!is_hex_hash(v))
				return usage_error("--expect-head: expected the head's 64 hex digits, got '%s'", v);
			expect = v;
		} else if (missing) {
			return usage_error("%s needs a value", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("unknown option '%s'", argv[i]);
		} else if (db) {
			return usage_error("one database at a time ('%s')", argv[i]);
		} else {
			db = argv[i];
		}
	}
	if (!db)
		return usage_error("%s", "no database given");
	if (keyfile && pubfile)
		return usage_error("%s", "--key or --pubkey, not both");
	struct audit_key *key = NULL;
	if ((keyfile || pubfile) && !(key = load_key(keyfile ? keyfile : pubfile, true)))
		return 1;
	char err[1024];
	struct audit_verdict v;
	struct audit_verify_opts o = { .archives = archives, .narchives = narchives, .key = key,
	                               .expect_head = expect };
	int rc = audit_verify_with(db, &o, &v, err, sizeof err);
	audit_key_free(key);
	if (rc < 0) {
		fprintf(stderr, "hetlab audit: %s\n", err);
		return 1;
	}
	return print_verdict(db, &v, narchives);
}

static int audit_prune_cmd(int argc, char **argv)
{
	const char *db = NULL, *days_arg = NULL, *keyfile = NULL;
	struct audit_prune_opts o = { .days = AUDIT_DEFAULT_RETENTION_DAYS };
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		if ((v = opt_value(argc, argv, &i, "--older-than", &missing)) ||
		    (!missing && (v = opt_value(argc, argv, &i, "--before", &missing)))) {
			days_arg = v;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--archive", &missing))) {
			o.archive = v;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--key", &missing))) {
			keyfile = v;
		} else if (missing) {
			return usage_error("%s needs a value", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("unknown option '%s'", argv[i]);
		} else if (db) {
			return usage_error("one database at a time ('%s')", argv[i]);
		} else {
			db = argv[i];
		}
	}
	if (!db)
		return usage_error("%s", "no database given");
	if (days_arg) {
		char *end = NULL;
		o.days = strtod(days_arg, &end);
		if (end == days_arg || *end || !isfinite(o.days))
			return usage_error("DAYS must be a number of days, got '%s'", days_arg);
	}
	struct audit_key *key = NULL;
	if (keyfile && !(key = load_key(keyfile, false)))
		return 1;
	o.key = key;
	char err[1024];
	struct audit_prune_result res;
	int rc = audit_prune(db, &o, &res, err, sizeof err);
	audit_key_free(key);
	if (rc < 0) {
		fprintf(stderr, "hetlab audit: %s\n", err);
		return 1;
	}
	double newest_d = (double)res.newest_us / (double)SIMTIME_DAY;
	if (res.count == 0) {
		printf("%s: nothing to prune: no audit record is older than %g days before the newest"
		       " (day %.2f of the run)\n", db, o.days, newest_d);
		return 0;
	}
	printf("%s: pruned %" PRId64 " audit records (seq %" PRId64 "..%" PRId64 ", before day %.2f:"
	       " older than %g days before the newest, day %.2f)\n", db, res.count, res.first_seq,
	       res.last_seq, (double)res.cut_us / (double)SIMTIME_DAY, o.days, newest_d);
	printf("  archived to %s\n", res.archive);
	printf("  anchor %d seals seq %" PRId64 " (anchor hash %s)\n", res.anchor_id, res.last_seq, res.hash);
	return 0;
}

static int audit_export_cmd(int argc, char **argv)
{
	const char *db = NULL, *out = NULL;
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v = opt_value(argc, argv, &i, "--out", &missing);
		if (missing)
			return usage_error("%s needs a file", argv[i]);
		if (v)
			out = v;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("unknown option '%s'", argv[i]);
		else if (db)
			return usage_error("one database at a time ('%s')", argv[i]);
		else
			db = argv[i];
	}
	if (!db)
		return usage_error("%s", "no database given");
	char err[1024];
	int64_t n = 0;
	if (audit_export(db, out, &n, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab audit: %s\n", err);
		return 1;
	}
	if (out)
		fprintf(stderr, "hetlab audit: wrote %" PRId64 " records to %s\n", n, out);
	return 0;
}

/* Declared in cli/main.c beside its dispatch entry. */
int cmd_audit(int argc, char **argv);
int cmd_audit(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
	if (strcmp(sub, "verify") == 0)
		return audit_verify_cmd(argc - 1, argv + 1);
	if (strcmp(sub, "prune") == 0)
		return audit_prune_cmd(argc - 1, argv + 1);
	if (strcmp(sub, "export") == 0)
		return audit_export_cmd(argc - 1, argv + 1);
	return usage_error("unknown audit command '%s'", sub);
}
