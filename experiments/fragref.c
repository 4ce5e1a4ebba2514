/* fragref — the FGD paper's published allocation ratios; see fragref.h. */
#include "experiments/fragref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char hl_embed_fgdref[];

const char *fragref_source(void)
{
	return "traces/data/alibaba-gpu-v2023-openb/published_alloc.csv (the FGD authors' "
	       "simulator, expected_results/analysis_allo_discrete.csv, mean of seeds 42-51)";
}

void fragref_list_name(const char *path, char *out, size_t n)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, "openb_pod_list_", 15) == 0)
		b += 15;
	size_t len = strlen(b);
	if (len > 4 && strcmp(b + len - 4, ".csv") == 0)
		len -= 4;
	snprintf(out, n, "%.*s", (int)len, b);
}

/* The data line for (list, policy), or NULL: lines are
 * "list,policy,seeds,p0,...,p130"; '#' lines and the header are skipped. */
static const char *find_line(const char *list, const char *policy)
{
	size_t ll = strlen(list), pl = policy ? strlen(policy) : 0;
	for (const char *p = hl_embed_fgdref; *p;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (*p != '#' && strncmp(p, list, ll) == 0 && p[ll] == ',' &&
		    (!policy || (strncmp(p + ll + 1, policy, pl) == 0 && p[ll + 1 + pl] == ',')))
			return p;
		p = *e ? e + 1 : e;
	}
	return NULL;
}

int fragref_has_list(const char *pod_list)
{
	return find_line(pod_list, NULL) != NULL;
}

int fragref_get(const char *pod_list, const char *policy, int pct, double *v)
{
	if (pct < 0 || pct > FRAGREF_MAX_PCT)
		return 0;
	const char *p = find_line(pod_list, policy);
	if (!p)
		return 0;
	for (int f = 0; f < 3 + pct; f++) {   /* skip list, policy, seeds, p0 .. p(pct-1) */
		p = strpbrk(p, ",\n");
		if (!p || *p == '\n')
			return 0;
		p++;
	}
	if (*p == ',' || *p == '\n' || *p == '\0')
		return 0;               /* an empty cell */
	char *end;
	double x = strtod(p, &end);
	if (end == p)
		return 0;
	*v = x;
	return 1;
}
