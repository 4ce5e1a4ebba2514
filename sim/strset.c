/* strset — see strset.h. */
#include "sim/strset.h"

#include <stdlib.h>
#include <string.h>

uint32_t strset_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

int32_t strset_find(const struct strset *s, const char *name, strset_key_fn key, const void *ctx)
{
	if (!s->slot)
		return -1;
	uint32_t h = strset_hash(name);
	for (uint32_t k = h & s->mask; s->slot[k]; k = (k + 1) & s->mask)
		if (s->hash[k] == h && strcmp(key(ctx, s->slot[k] - 1), name) == 0)
			return s->slot[k] - 1;
	return -1;
}

static void put(int32_t *slot, uint32_t *hash, uint32_t mask, uint32_t h, int32_t idx)
{
	uint32_t k = h & mask;
	while (slot[k])
		k = (k + 1) & mask;
	slot[k] = idx + 1;
	hash[k] = h;
}

int strset_add(struct strset *s, const char *name, int32_t idx)
{
	if (!s->slot || (uint32_t)s->n + 1 > (s->mask + 1) / 2) {
		uint32_t nsize = s->slot ? (s->mask + 1) * 2 : 64;
		if (nsize == 0)
			return -1;   /* 2^32 slots: never in practice */
		int32_t *ns = calloc(nsize, sizeof *ns);
		uint32_t *nh = ns ? malloc(nsize * sizeof *nh) : NULL;
		if (!nh) {
			free(ns);
			return -1;
		}
		for (uint32_t k = 0; s->slot && k <= s->mask; k++)
			if (s->slot[k])
				put(ns, nh, nsize - 1, s->hash[k], s->slot[k] - 1);
		free(s->slot);
		free(s->hash);
		s->slot = ns;
		s->hash = nh;
		s->mask = nsize - 1;
	}
	put(s->slot, s->hash, s->mask, strset_hash(name), idx);
	s->n++;
	return 0;
}

void strset_fini(struct strset *s)
{
	free(s->slot);
	free(s->hash);
	memset(s, 0, sizeof *s);
}
