/* hetlab audit verify|prune|export — the results file's hash-chained audit
 * log (analysis/audit.h, docs/audit.md). */
#include "cli/args.h"
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
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "audit verify", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_ARCHIVE:
			if (narchives == MAX_ARCHIVES)
				return cli_usage(&ap, "at most 256 archives (%s)", ap.val);
			archives[narchives++] = ap.val;
			break;
		case OPT_KEY: keyfile = ap.val; break;
		case OPT_PUBKEY: pubfile = ap.val; break;
		case OPT_EXPECT_HEAD:
			if (!is_hex_hash(ap.val))
				return cli_usage(&ap, "--expect-head: expected the head's 64 hex digits, got '%s'", ap.val);
			expect = ap.val;
			break;
		case CLI_POS:
			if (db)
				return cli_usage(&ap, "one database at a time ('%s')", ap.val);
			db = ap.val;
			break;
		}
	if (!db)
		return cli_usage(&ap, "%s", "no database given");
	if (keyfile && pubfile)
		return cli_usage(&ap, "%s", "--key or --pubkey, not both");
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
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "audit prune", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_OLDER_THAN:
		case OPT_BEFORE: days_arg = ap.val; break;
		case OPT_ARCHIVE: o.archive = ap.val; break;
		case OPT_KEY: keyfile = ap.val; break;
		case CLI_POS:
			if (db)
				return cli_usage(&ap, "one database at a time ('%s')", ap.val);
			db = ap.val;
			break;
		}
	if (!db)
		return cli_usage(&ap, "%s", "no database given");
	if (days_arg) {
		char *end = NULL;
		o.days = strtod(days_arg, &end);
		if (end == days_arg || *end || !isfinite(o.days))
			return cli_usage(&ap, "DAYS must be a number of days, got '%s'", days_arg);
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
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "audit export", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_OUT: out = ap.val; break;
		case CLI_POS:
			if (db)
				return cli_usage(&ap, "one database at a time ('%s')", ap.val);
			db = ap.val;
			break;
		}
	if (!db)
		return cli_usage(&ap, "%s", "no database given");
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

/* Declared in cli/cmdtab.c beside its table entry. */
int cmd_audit(int argc, char **argv);
int cmd_audit(int argc, char **argv)
{
	int rc;
	const struct cli_cmd *sub = cli_sub_find("audit", argc, argv, &rc);
	if (!sub)
		return rc;
	if (strcmp(sub->name, "verify") == 0)
		return audit_verify_cmd(argc - 1, argv + 1);
	if (strcmp(sub->name, "prune") == 0)
		return audit_prune_cmd(argc - 1, argv + 1);
	return audit_export_cmd(argc - 1, argv + 1);
}
