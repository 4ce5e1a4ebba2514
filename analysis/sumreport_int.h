/* sumreport_int — what sumreport.c (text, figures) and sumreport_html.c
 * (the HTML page) share: a sweep summary loaded into plain arrays. */
#ifndef HL_SUMREPORT_INT_H
#define HL_SUMREPORT_INT_H

#include <stddef.h>

struct sweep_sum {
	int npoint, nparam;
	char **param;                /* paths */
	char ***value;               /* [point][param] JSON text */
	int *ok, *all;               /* runs per point */
	int nmetric;
	char **metric;
	double *mean, *half;         /* [metric * npoint + point]; NaN none */
	double *lo, *hi;             /* the 95 % t interval cut to what the metric can be
	                              * (metric_range: no wait or count below 0, no
	                              * utilisation above 100 %); NaN none */
	int *n;
};

/* The summary at path with the metrics asked (none: a default list the
 * file has). 0; -1 with err; -2 when a metric is unknown or names a label
 * value the runs do not have (a usage error). */
int sumreport_sum_load(const char *path, const char *const *want, size_t nwant,
                       struct sweep_sum *s, char *err, size_t errlen);
void sumreport_sum_fini(struct sweep_sum *s);

#endif
