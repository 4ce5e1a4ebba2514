/* twincheck — how close two schedules of one workload are, job for job
 * (`hetlab twin check`, docs/slurm-twin.md): a twin's replay against the
 * real Slurm run it was built from, or two real runs against each other
 * (Slurm's own run-to-run spread). The jobs of the two sides are matched by
 * a key (the JobID, or the JobName a workload gave them); the figures are
 * computed on the matched jobs that started on both sides:
 *
 * - mean wait (start − submit) of each side and B's error against A, %;
 * - |dstart| = |start_B − offset − start_A|, where offset (B's clock minus
 *   A's) is the median of submit_B − submit_A over the matched jobs, so
 *   that runs started at different times (or a twin counted from the
 *   trace's first submit) compare: its median and p90, in seconds and in
 *   bf_intervals, and the share within one bf_interval;
 * - Kendall's tau-b of the two start orders (ties counted, O(n log n));
 * - the preemptions of each side (all its jobs, matched or not).
 *
 * Plain arrays in, a plain struct out; twincheck_load_db reads a run
 * database's jobs into the same arrays. Ownership: the caller owns every
 * array; twincheck_compare keeps nothing. */
#ifndef HL_TWINCHECK_H
#define HL_TWINCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TWINCHECK_KEY_MAX 64

struct twincheck_job {
	char key[TWINCHECK_KEY_MAX];  /* the matching key: JobID or JobName */
	double submit_s;              /* any origin, one per side */
	double start_s;               /* NAN when it never started */
	int32_t preemptions;          /* times preempted (requeued or cancelled) */
};

/* One matched job that started on both sides (the per-job rows of --json),
 * times on A's clock. */
struct twincheck_pair {
	int64_t a, b;                 /* indexes into the two arrays */
	double wait_a_s, wait_b_s;
	double dstart_s;              /* start_B − offset − start_A, signed */
};

struct twincheck {
	int64_t jobs_a, jobs_b;       /* jobs on each side */
	int64_t matched;              /* keys on both sides that started on both */
	int64_t only_a, only_b;       /* a key unique on its side, not once on the other */
	int64_t unstarted;            /* keys once on each side, not started on one or both */
	int64_t dup_a, dup_b;         /* jobs whose key is empty or not unique on their side */
	double offset_s;              /* median submit_B − submit_A over the matched jobs */
	double wait_mean_a_s, wait_mean_b_s;
	double wait_err_pct;          /* (B − A) / A × 100; NAN when A's mean is 0 */
	double dstart_p50_s, dstart_p90_s, dstart_mean_s;   /* of |dstart| */
	double bf_interval_s;
	double within_bf;             /* share of |dstart| <= bf_interval, in [0, 1] */
	double tau_b;                 /* NAN with fewer than 2 jobs or one side all tied */
	int64_t preempt_a, preempt_b;
	struct twincheck_pair *pair;  /* matched entries, in A's submit order; twincheck_fini */
};

/* Matches a[0..na-1] and b[0..nb-1] by key and fills r (bf_interval_s > 0
 * sets the unit of the bf figures). Figures over no job are NAN. 0, or -1
 * out of memory (r then empty). */
int twincheck_compare(const struct twincheck_job *a, int64_t na, const struct twincheck_job *b,
                      int64_t nb, double bf_interval_s, struct twincheck *r);
void twincheck_fini(struct twincheck *r);

/* Kendall's tau-b of the pairs (x[i], y[i]) by Knight's algorithm (sort
 * by x then y, count the exchanges of a merge sort by y), ties in x, in y
 * and in both accounted as in tau-b. NAN for n < 2, when every x or every y
 * is tied, or out of memory. */
double twincheck_tau_b(const double *x, const double *y, int64_t n);

/* Reads run database `path`'s jobs: the key is the trace id in decimal
 * (by_name false) or the job's name from table job_name (a job without one
 * gets an empty key, which never matches), submit and start in seconds,
 * preemptions; *bf_interval_s is the run's policy parameter bf_interval_s
 * (NAN when the run has none). *jobs is the caller's to free. 0, or -1
 * with "PATH: what" in err. */
int twincheck_load_db(const char *path, bool by_name, struct twincheck_job **jobs, int64_t *n,
                      double *bf_interval_s, char *err, size_t errlen);

#endif
