/* live_cfg — lookups in the daemon's configuration (see live_cfg.h). */
#include "live/live_cfg.h"

#include <string.h>

const char *livecfg_map_get(const struct live_map *m, const char *key)
{
	const char *def = NULL;
	for (int i = 0; i < m->n; i++) {
		if (key && strcmp(m->e[i].k, key) == 0)
			return m->e[i].v;
		if (strcmp(m->e[i].k, "*") == 0)
			def = m->e[i].v;
	}
	return def;
}

const struct live_probe_src *livecfg_probe(const struct live_cfg *c, const char *name)
{
	const struct live_probe_src *def = NULL;
	for (int i = 0; i < c->nprobe; i++) {
		if (strcmp(c->probe[i].node, name) == 0)
			return &c->probe[i];
		if (!c->probe[i].node[0])
			def = &c->probe[i];
	}
	return def;
}
