/* metrics — the live daemon's Prometheus endpoint: a renderer that turns
 * the engine's state, the nodes' latest probe readings and the daemon's
 * counters into the text exposition format (version 0.0.4), and a small
 * HTTP server (libmicrohttpd, its own thread) that serves the last text
 * the daemon published. docs/metrics.md lists every metric and the
 * Grafana dashboard (docs/grafana/hetlab-live.json) built on them.
 *
 * The two halves never meet inside the server: the daemon's loop renders
 * (it owns the engine) and publishes a copy; the server thread only reads
 * that copy, under a mutex. So the server never touches the engine and a
 * slow scraper never stalls a scheduling pass.
 *
 * metrics_render is linear in nodes + racks + submitted jobs and allocates
 * nothing but the growth of the caller's buffer, which it keeps: rendering
 * into the same buffer every probe interval allocates nothing once it has
 * grown to the cluster's size.
 *
 * Ownership: the caller owns the buffer, the readings and the counters;
 * metrics_publish copies the text. metrics_start allocates the server,
 * metrics_stop joins its thread and frees it. */
#ifndef HL_METRICS_H
#define HL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim;

/* Per-node live readings the daemon keeps (from probes); the renderer reads them. */
struct live_reading {
	bool ok;            /* a reading arrived and parsed */
	int64_t at_us;      /* when (engine time, µs) */
	double power_w;     /* node power, NaN if unknown */
	double temp_c;      /* hottest sensor (CPU/GPU), NaN if unknown */
	double util;        /* measured busy fraction 0..1, NaN if unknown */
	int gpu_errors;     /* health events seen in the last reading (XID, ECC uncorrected) */
};

/* A histogram the daemon feeds (metrics_observe): counts per upper bound
 * (not cumulative; the renderer sums them), the count and the sum. */
#define METRICS_HIST_MAX 16
struct metrics_hist {
	uint64_t bucket[METRICS_HIST_MAX + 1];   /* the last: above every bound */
	uint64_t count;
	double sum;
};

/* The upper bounds (seconds) of the job wait histogram (the same as the
 * simulated runs' export, analysis/openmetrics.c) and of the scheduling
 * pass duration histogram. */
extern const double metrics_wait_buckets_s[];
extern const int metrics_nwait_buckets;
extern const double metrics_pass_buckets_s[];
extern const int metrics_npass_buckets;

struct metrics_counters {
	uint64_t preemptions, requeues, starts, submits, cancels;
	uint64_t ends[8];      /* by final job state (sim/job.h enum job_state values < 8) */
	uint64_t passes; double last_pass_s;   /* scheduling passes and the last one's duration */
	/* Every scheduling pass's wall time: the daemon calls
	 * metrics_observe_pass(c, seconds) after each pass. */
	struct metrics_hist pass_hist;
	int64_t started_unix;  /* daemon start, unix seconds */
	/* The waits of the started jobs that left the engine's tables
	 * (sim_compact): the wait histogram adds those of the jobs it holds. */
	struct metrics_hist left_waits;
};

enum metrics_type { METRICS_GAUGE, METRICS_COUNTER, METRICS_HISTOGRAM };

/* Counts one scheduling pass of `seconds` wall time: passes, last_pass_s
 * and pass_hist. Allocates nothing. */
void metrics_observe_pass(struct metrics_counters *c, double seconds);
/* Counts the wait of a started job that leaves the engine's tables. */
void metrics_observe_left_wait(struct metrics_counters *c, double seconds);

/* One metric family the renderer emits. */
struct metrics_family {
	const char *name;      /* "hetlab_gpus_total" */
	int type;              /* enum metrics_type */
	const char *labels;    /* its label names, comma-separated ("" none), for docs and tests */
	const char *help;
};

/* Every family metrics_render can emit, in the order it emits them; ends
 * with a { NULL } sentinel. */
extern const struct metrics_family metrics_families[];

/* Renders the Prometheus text exposition format (version 0.0.4: # HELP,
 * # TYPE, one sample per line, label values escaped) for the engine's
 * state into *buf (grown with realloc; *cap its size). Returns the length
 * (the text is NUL-terminated), or -1 on ENOMEM (*buf is left valid). rd
 * may be NULL (no readings) else has s->cl.nnodes entries; c may be NULL
 * (no counter families). Every family's HELP and TYPE lines are written
 * even when it has no sample; a NaN value is never written (the sample is
 * left out). */
long metrics_render(char **buf, size_t *cap, const struct sim *s, const struct live_reading *rd,
                    const struct metrics_counters *c);

/* Writes label value `v` (n bytes) escaped for the exposition format
 * (\ → \\, " → \", newline → \n) into dst (NUL-terminated, truncated to
 * dstlen). Returns the length the whole escaped value needs. */
size_t metrics_escape_label(char *dst, size_t dstlen, const char *v, size_t n);

struct metrics_srv;

/* Starts a libmicrohttpd server (its own thread) on addr:port. addr NULL →
 * "127.0.0.1" ("localhost" is taken as 127.0.0.1; otherwise a numeric IPv4
 * or IPv6 address). A non-loopback addr (anything not 127.0.0.0/8 or ::1)
 * is refused unless allow_public. port 0 picks a free port (metrics_port
 * tells which). Serves GET (and HEAD) /metrics (text/plain; version=0.0.4)
 * from the last published text (503 until the first publish), GET
 * /healthz (200 "ok\n" when healthy, 503 with the message otherwise; 503
 * "starting" until the first publish), 404 elsewhere, 405 for other
 * methods. Returns 0 or -1 with a message in err. */
int metrics_start(struct metrics_srv **out, const char *addr, int port, bool allow_public, char *err,
                  size_t errlen);
int metrics_port(const struct metrics_srv *m);
/* Swaps in new text (copied) and health, under a mutex; the server thread
 * never touches the engine. why: the reason when !healthy (may be NULL).
 * 0, or -1 on ENOMEM (the previous text stays). */
int metrics_publish(struct metrics_srv *m, const char *text, size_t len, bool healthy, const char *why);
/* Stops the server (joins its thread) and frees it; NULL is a no-op. */
void metrics_stop(struct metrics_srv *m);

#endif
