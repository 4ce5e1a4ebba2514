/* mig — MIG placement rules, layout state, re-slicing and enumeration.
 * See mig.h for the rules and ownership. */
#include "sim/mig.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

const struct mig_card *mig_find_card(const struct mig_geometry *g, const char *gpu)
{
	for (int i = 0; i < g->ncards; i++)
		if (strcmp(g->cards[i].gpu, gpu) == 0)
			return &g->cards[i];
	return NULL;
}

int mig_find_profile(const struct mig_card *card, const char *name)
{
	for (int i = 0; i < card->nprofiles; i++)
		if (strcmp(card->profiles[i].name, name) == 0)
			return i;
	return -1;
}

const char *mig_strerror(int err)
{
	switch (err) {
	case MIG_OK: return "ok";
	case MIG_EPROFILE: return "no such profile on this card";
	case MIG_ESTART: return "the profile may not start at this memory slice";
	case MIG_EMAX: return "the profile is at its maximum number of instances";
	case MIG_EOVERLAP: return "a memory slice it needs is taken";
	case MIG_ECOMPUTE: return "not enough free compute slices";
	case MIG_ENOENT: return "no such instance";
	case MIG_EBUSY: return "busy";
	case MIG_ENOFIT: return "the profiles do not fit on the card together";
	default: return "unknown MIG error";
	}
}

void mig_layout_init(struct mig_layout *l, const struct mig_card *card, simtime reslice_us)
{
	assert(card && card->memory_slices > 0 && card->memory_slices <= MIG_SLICES_MAX);
	assert(reslice_us >= 0);
	memset(l, 0, sizeof *l);
	l->card = card;
	l->reslice_us = reslice_us;
	for (int i = 0; i < MIG_SLICES_MAX; i++) {
		l->owner[i] = -1;
		l->inst[i].profile = -1;
	}
}

static int count_instances(const struct mig_layout *l, int profile)
{
	int n = 0;
	for (int i = 0; i < MIG_SLICES_MAX; i++)
		n += l->inst[i].profile == profile;
	return n;
}

int mig_can_place(const struct mig_layout *l, int profile, int start)
{
	const struct mig_card *c = l->card;
	if (profile < 0 || profile >= c->nprofiles)
		return MIG_EPROFILE;
	const struct mig_profile *p = &c->profiles[profile];
	if (start < 0 || start >= c->memory_slices || !(p->start_mask >> start & 1))
		return MIG_ESTART;
	/* The loader guarantees every listed start fits on the card. */
	assert(start + p->memory_slices <= c->memory_slices);
	if (count_instances(l, profile) >= p->max_instances)
		return MIG_EMAX;
	for (int s = start; s < start + p->memory_slices; s++)
		if (l->owner[s] >= 0)
			return MIG_EOVERLAP;
	if (l->compute_used + p->compute_slices > c->compute_slices)
		return MIG_ECOMPUTE;
	return MIG_OK;
}

int mig_place(struct mig_layout *l, int profile, int start)
{
	int rc = mig_can_place(l, profile, start);
	if (rc != MIG_OK)
		return rc;
	int id = 0;
	while (l->inst[id].profile >= 0)
		id++;
	/* Each instance holds at least one memory slice, so a slot is free. */
	assert(id < MIG_SLICES_MAX);
	const struct mig_profile *p = &l->card->profiles[profile];
	l->inst[id] = (struct mig_instance){ .profile = (int16_t)profile, .start = (int8_t)start };
	for (int s = start; s < start + p->memory_slices; s++)
		l->owner[s] = (int8_t)id;
	l->ninst++;
	l->compute_used += p->compute_slices;
	return id;
}

int mig_remove(struct mig_layout *l, int id)
{
	if (id < 0 || id >= MIG_SLICES_MAX || l->inst[id].profile < 0)
		return MIG_ENOENT;
	if (l->inst[id].busy)
		return MIG_EBUSY;
	const struct mig_profile *p = &l->card->profiles[l->inst[id].profile];
	for (int s = l->inst[id].start; s < l->inst[id].start + p->memory_slices; s++) {
		assert(l->owner[s] == id);
		l->owner[s] = -1;
	}
	l->inst[id].profile = -1;
	l->ninst--;
	l->compute_used -= p->compute_slices;
	assert(l->ninst >= 0 && l->compute_used >= 0);
	return MIG_OK;
}

int mig_first_fit(const struct mig_layout *l, int profile)
{
	for (int s = 0; s < l->card->memory_slices; s++)
		if (mig_can_place(l, profile, s) == MIG_OK)
			return s;
	return -1;
}

int mig_set_busy(struct mig_layout *l, int id, bool busy)
{
	if (id < 0 || id >= MIG_SLICES_MAX || l->inst[id].profile < 0)
		return MIG_ENOENT;
	if (l->inst[id].busy != busy)
		l->nbusy += busy ? 1 : -1;
	l->inst[id].busy = busy;
	return MIG_OK;
}

bool mig_idle(const struct mig_layout *l)
{
	return l->nbusy == 0;
}

/* Places order[k..n) on l by backtracking over each one's starts, lowest
 * first; true when all fit (l then holds them), false with l as it was. */
static bool place_all(struct mig_layout *l, const int *order, int k, int n)
{
	if (k == n)
		return true;
	for (int s = 0; s < l->card->memory_slices; s++) {
		int id = mig_place(l, order[k], s);
		if (id < 0)
			continue;
		if (place_all(l, order, k + 1, n))
			return true;
		mig_remove(l, id);
	}
	return false;
}

int mig_reslice(struct mig_layout *l, const int *profiles, int n, simtime *cost_us)
{
	const struct mig_card *c = l->card;
	if (!mig_idle(l))
		return MIG_EBUSY;
	if (n < 0 || (n > 0 && !profiles))
		return MIG_EPROFILE;
	for (int i = 0; i < n; i++)
		if (profiles[i] < 0 || profiles[i] >= c->nprofiles)
			return MIG_EPROFILE;
	if (n > c->memory_slices)
		return MIG_ENOFIT;
	/* Largest memory first, then most compute, so that e.g. 4g.40gb takes
	 * start 0 before 3g.40gb does; the backtracking makes the order a
	 * preference only, never the reason a set that fits is refused. */
	int order[MIG_SLICES_MAX];
	for (int i = 0; i < n; i++) {
		int p = profiles[i], j = i;
		const struct mig_profile *pp = &c->profiles[p];
		while (j > 0) {
			const struct mig_profile *q = &c->profiles[order[j - 1]];
			if (q->memory_slices > pp->memory_slices ||
			    (q->memory_slices == pp->memory_slices && q->compute_slices >= pp->compute_slices))
				break;
			order[j] = order[j - 1];
			j--;
		}
		order[j] = p;
	}
	struct mig_layout next;
	mig_layout_init(&next, c, l->reslice_us);
	if (!place_all(&next, order, 0, n))
		return MIG_ENOFIT;
	*l = next;
	if (cost_us)
		*cost_us = l->reslice_us;
	return MIG_OK;
}

static bool usable(const struct mig_profile *p, bool with_me)
{
	return with_me || !p->media_ext;
}

static bool maximal(const struct mig_layout *l, bool with_me)
{
	const struct mig_card *c = l->card;
	for (int p = 0; p < c->nprofiles; p++)
		if (usable(&c->profiles[p], with_me) && mig_first_fit(l, p) >= 0)
			return false;
	return true;
}

struct enum_ctx {
	bool with_me, stop;
	mig_layout_fn fn;
	void *ctx;
};

/* Decides the lowest undecided memory slice from pos on: either an
 * instance starts there, or it stays empty. Each set of placements is
 * reached by exactly one path, so each layout is counted once. */
static long enum_rec(struct mig_layout *l, int pos, struct enum_ctx *e)
{
	const struct mig_card *c = l->card;
	while (pos < c->memory_slices && l->owner[pos] >= 0)
		pos++;
	if (pos >= c->memory_slices) {
		if (!maximal(l, e->with_me))
			return 0;
		if (e->fn && e->fn(l, e->ctx))
			e->stop = true;
		return 1;
	}
	long n = 0;
	for (int p = 0; p < c->nprofiles && !e->stop; p++) {
		if (!usable(&c->profiles[p], e->with_me))
			continue;
		int id = mig_place(l, p, pos);
		if (id < 0)
			continue;
		n += enum_rec(l, pos + 1, e);
		mig_remove(l, id);
	}
	if (!e->stop)
		n += enum_rec(l, pos + 1, e);
	return n;
}

long mig_enumerate(const struct mig_card *card, bool with_media_ext, mig_layout_fn fn, void *ctx)
{
	struct mig_layout l;
	mig_layout_init(&l, card, 0);
	struct enum_ctx e = { .with_me = with_media_ext, .fn = fn, .ctx = ctx };
	return enum_rec(&l, 0, &e);
}

void mig_layout_format(const struct mig_layout *l, char *buf, size_t len)
{
	size_t off = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (int s = 0; s < l->card->memory_slices && off < len; s++) {
		int id = l->owner[s];
		if (id < 0 || l->inst[id].start != s)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s@%d", off ? " " : "",
		                        l->card->profiles[l->inst[id].profile].name, s);
	}
	if (l->ninst == 0)
		snprintf(buf, len, "(empty)");
}
