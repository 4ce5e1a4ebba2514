/* autoresults — results.db written every results_every_s by a child (this
 * binary executed anew, lchild.c: `hetlab replay STATE_DIR --results
 * STATE_DIR/results.db --no-compare`), so that the loop never stops for
 * it: the write replays the whole recording, its time that of the state's
 * history (docs/live.md "What results.db costs"). One at a time; the next
 * no sooner after the last one ended than results_every_s, and than four
 * times as long as it took, so that the writes keep to a fifth of a core
 * however long the history. Skipped while the daemon changed no row of the
 * state since the last write that succeeded (the file would be the same).
 * The write as the daemon stops is its own (daemon.c write_results). */
#include "live/live_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct lres {
	struct lchild c;
	double next;                 /* monotonic seconds: not before */
	int changes;                 /* sqlite3_total_changes when the running write started */
	int64_t ok, failed;
};

#define RESULTS_SAYS "hetlab replay: "

bool live_results_stale(struct live *L, const char *path)
{
	return !L->res_known || sqlite3_total_changes(L->st.db) != L->res_changes || access(path, F_OK) != 0;
}

static struct lres *get(struct live *L)
{
	if (L->res || L->mode != LIVE_DAEMON || L->cfg.results_every_s <= 0)
		return L->res;
	if ((L->res = calloc(1, sizeof *L->res)) != NULL) {
		lchild_init(&L->res->c, "results");
		L->res->next = lchild_now() + L->cfg.results_every_s;
	}
	return L->res;
}

static void done(struct live *L, struct lres *r, bool ok)
{
	double gap = 4 * r->c.last_s;
	r->next = lchild_now() + (gap > L->cfg.results_every_s ? gap : L->cfg.results_every_s);
	if (ok) {
		r->ok++;
		L->res_known = true;
		L->res_changes = r->changes;
	} else {
		r->failed++;
	}
}

void lres_tick(struct live *L)
{
	struct lres *r = get(L);
	if (!r)
		return;
	if (r->c.pid > 0) {
		if (lchild_drain(&r->c))
			done(L, r, lchild_finish(L, &r->c, RESULTS_SAYS, true, false));
		return;
	}
	double now = lchild_now();
	if (now < r->next)
		return;
	char path[4200];
	snprintf(path, sizeof path, "%s/results.db", L->cfg.state_dir);
	if (!live_results_stale(L, path)) {
		r->next = now + L->cfg.results_every_s;
		return;
	}
	/* not -q: what it says on success tells a success from a failure
	 * where the local executor reaped it (lchild_finish), and is not
	 * logged (quiet) */
	char cmd[] = "replay", opt[] = "--results", nc[] = "--no-compare";
	char *args[] = { cmd, L->cfg.state_dir, opt, path, nc, NULL };
	r->changes = sqlite3_total_changes(L->st.db);
	if (lchild_spawn(L, &r->c, args)) {
		live_logl(L, LIVE_WARN, "results: %s is not written", path);
		r->c.last_s = 0;
		done(L, r, false);
	}
}

void lres_reaped(struct live *L, pid_t pid, int wst)
{
	if (L->res)
		lchild_reaped(&L->res->c, pid, wst);
}

void lres_end(struct live *L)
{
	struct lres *r = L->res;
	if (r && r->c.pid > 0)
		lchild_stop(L, &r->c, RESULTS_SAYS, true);   /* the write as the daemon stops follows */
	free(r);
	L->res = NULL;
}

long lres_metrics(const struct live *L, char **buf, size_t *cap, long n)
{
	const struct lres *r = L->res;
	if (!r)
		return n;
	return lchild_metrics(buf, cap, n, "hetlab_results_writes_total", "The daemon's periodic writes of results.db (results_every_s)", r->ok, r->failed,
	                      "hetlab_results_write_last_seconds", "How long the daemon's last periodic write of results.db took", r->c.last_s);
}
