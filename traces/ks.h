/* ks — the two-sample Kolmogorov–Smirnov test: the statistic D, its
 * asymptotic p-value, and the three comparisons `hetlab trace synth
 * --compare` prints between a trace and a workload generated from its
 * fitted model. Borrows its inputs. */
#ifndef HL_KS_H
#define HL_KS_H

#include <stddef.h>
#include "traces/trace.h"

struct ks_result {
	size_t na, nb;
	double d;              /* sup |F_a - F_b| */
	double p;              /* asymptotic p-value */
};

/* Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2), the
 * Kolmogorov distribution's upper tail. */
double ks_q(double lambda);
/* D of two sorted samples (ties handled: both step together). */
double ks_d_sorted(const double *a, size_t na, const double *b, size_t nb);
/* D and its p-value, Q_KS((sqrt(ne) + 0.12 + 0.11/sqrt(ne)) D) with
 * ne = na nb / (na + nb). Sorts a and b in place. Either empty: d = p = NAN. */
void ks_test(double *a, size_t na, double *b, size_t nb, struct ks_result *r);

/* The three comparisons `hetlab trace synth --compare` prints. */
enum ks_what { KS_DURATION, KS_INTERARRIVAL, KS_SIZE, KS_NWHAT };
const char *ks_what_name(enum ks_what k);
/* Compares workload a with b: durations (truth runtimes, s), inter-arrival
 * times (s, between consecutive submits in submit order) and sizes (cores
 * per job), over the jobs of class cls (-1: all). */
int ks_compare(const struct workload *a, const struct workload *b, int cls,
               struct ks_result r[KS_NWHAT], char *err, size_t errlen);

#endif
