/* obs — inputs gathered from the world before the transaction that
 * records them (see live_int.h). */
#include "live/live_int.h"

#include <stdlib.h>
#include <string.h>

int obs_add(struct obs *o, const struct rec_row *r)
{
	if (o->n == o->cap) {
		int32_t cap = o->cap ? 2 * o->cap : 32;
		struct rec_row *n = realloc(o->rows, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		o->rows = n;
		o->cap = cap;
	}
	struct rec_row c = *r;
	c.data = r->data ? strdup(r->data) : NULL;
	o->rows[o->n++] = c;
	return 0;
}

void obs_free(struct obs *o)
{
	for (int32_t k = 0; k < o->n; k++)
		free(o->rows[k].data);
	free(o->rows);
	o->rows = NULL;
	o->n = o->cap = 0;
}
