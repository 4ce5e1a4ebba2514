/* autoprune — the daemon prunes its own state (LIVE.json prune_keep_days,
 * docs/live.md "Retention and archive"): every prune_every_s it runs
 * `hetlab state-prune STATE_DIR --before @T` (T: now less prune_keep_days)
 * in a child process, the same code as the command (live/retain.c), and
 * reads what it says between ticks, so that the loop never waits on the
 * prune's copies and deletes (which wait only for the daemon's own short
 * transactions, and it for theirs, 5,000 rows at a time).
 *
 * The child is this binary executed anew (lchild.c), not a fork that
 * calls lretain_prune; it dies with the daemon (a prune killed anywhere
 * loses nothing: tests/live/prune.sh). */
#include "live/live_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PRUNE_SAYS "hetlab state-prune: "   /* dropped from the lines it logs */

struct lprune {
	struct lchild c;             /* the running prune (c.pid 0: none) */
	double next;                 /* monotonic seconds */
	int64_t ok, failed;          /* prunes finished so far */
};

static struct lprune *get(struct live *L)
{
	if (L->prune || L->mode != LIVE_DAEMON || L->cfg.prune_keep_days < 0)
		return L->prune;
	if ((L->prune = calloc(1, sizeof *L->prune)) != NULL) {
		lchild_init(&L->prune->c, "prune");
		L->prune->next = lchild_now() + L->cfg.prune_every_s;
	}
	return L->prune;
}

static void spawn(struct live *L, struct lprune *p)
{
	char before[64];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(before, sizeof before, "@%.6f",
	         (double)now.tv_sec + (double)now.tv_nsec / 1e9 - L->cfg.prune_keep_days * 86400.0);
	char cmd[] = "state-prune", opt[] = "--before";
	char *args[] = { cmd, L->cfg.state_dir, opt, before, NULL };
	if (lchild_spawn(L, &p->c, args)) {
		live_logl(L, LIVE_WARN, "prune: the state is not pruned");
		p->failed++;
	}
}

static void count(struct lprune *p, bool ok)
{
	if (ok)
		p->ok++;
	else
		p->failed++;
}

void lprune_tick(struct live *L)
{
	struct lprune *p = get(L);
	if (!p)
		return;
	if (p->c.pid > 0) {
		if (lchild_drain(&p->c))
			count(p, lchild_finish(L, &p->c, PRUNE_SAYS, false, false));
		return;
	}
	double now = lchild_now();
	if (now < p->next)
		return;
	p->next = now + L->cfg.prune_every_s;
	spawn(L, p);
}

void lprune_reaped(struct live *L, pid_t pid, int wst)
{
	if (L->prune)
		lchild_reaped(&L->prune->c, pid, wst);
}

void lprune_end(struct live *L, bool kill_it)
{
	struct lprune *p = L->prune;
	if (p && p->c.pid > 0)
		count(p, lchild_stop(L, &p->c, PRUNE_SAYS, kill_it));
	free(p);
	L->prune = NULL;
}

long lprune_metrics(const struct live *L, char **buf, size_t *cap, long n)
{
	const struct lprune *p = L->prune;
	if (!p)
		return n;
	return lchild_metrics(buf, cap, n, "hetlab_state_prunes_total", "The daemon's prunes of its state (prune_keep_days)", p->ok, p->failed,
	                      "hetlab_state_prune_last_seconds", "How long the daemon's last prune of its state took", p->c.last_s);
}
