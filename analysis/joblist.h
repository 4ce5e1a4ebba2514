/* joblist — a run's jobs listed the way Slurm's sacct lists a cluster's
 * (`hetlab jobs`): sacct's field names and --format syntax (FIELD[%WIDTH],
 * a negative width left-justifies, a value wider than its field ends in
 * '+'), its fixed-width and -p/-P parsable outputs, its state names and
 * short forms, and its --starttime/--endtime window: a job is listed when
 * it was eligible or running at some time in [start, end].
 *
 * Times are printed as YYYY-MM-DDTHH:MM:SS in UTC: the run's simulated
 * clock laid on an origin (by default the trace's start, meta unix_start,
 * else the run's recorded `created` time). With the trace's names (tables
 * name and job_name, a Slurm dump's) JobName, User, Account, Partition
 * and QOS are names; JobID is the trace's job id.
 * The mapping of hetlab's job states onto Slurm's is in docs/results.md.
 *
 * Reads the results database only; borrows every string and stream. */
#ifndef HL_JOBLIST_H
#define HL_JOBLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct joblist_opts {
	const char *format;    /* NULL: sacct's default JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode */
	int parsable;          /* 0 columns, 1 "a|b|" (-p), 2 "a|b" (-P) */
	bool noheader;
	const char *states;    /* comma-separated state names or short forms; NULL all */
	const char *accounts;  /* comma-separated accounts as Account shows them; NULL all */
	const char *start;     /* TIME: YYYY-MM-DD[THH:MM[:SS]], or +SECONDS from the origin; NULL */
	const char *end;
	const char *origin;    /* the UTC time of simulated t = 0; NULL: joblist_run_origin's */
};

/* 0 on success; -1 with a message in err (naming db, or the bad field,
 * state or time and what is expected). */
int joblist_print(const char *db, const struct joblist_opts *o, FILE *out, char *err, size_t errlen);
/* The field names, as `sacct --helpformat` prints them. */
void joblist_print_fields(FILE *out);
/* Checks a --format, --state or TIME argument before any database is
 * opened: 0 ok, -1 with a message. */
int joblist_check(const struct joblist_opts *o, char *err, size_t errlen);

struct sqlite3;
/* The Unix time of a run's simulated t = 0 in results file db: meta
 * unix_start (the trace's first submit, when known), else the run's
 * `created` time, else 0. -1 when db has no run table. */
int joblist_run_origin(struct sqlite3 *db, int64_t *origin);

/* "2026-01-05T10:00:00", "2026-01-05", "+3600": Unix seconds (UTC);
 * +SECONDS is relative to origin. -1 on a malformed time. */
int joblist_parse_time(const char *s, int64_t origin, int64_t *out);

#endif
