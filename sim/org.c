/* org — tenants, projects, shares and quotas as plain data. See org.h. */
/* sim/org.h uses NULL without <stddef.h>: included first until it does. */
#include <stddef.h>
#include "sim/org.h"

#include <stdlib.h>
#include <string.h>

void org_init(struct org *o)
{
	memset(o, 0, sizeof *o);
	o->halflife_s = 7 * 86400.0;
	o->core_weight = 0;
}

void org_fini(struct org *o)
{
	free(o->t);
	free(o->p);
	free(o->gpu_weight);
	free(o->approve);
	org_init(o);
}
