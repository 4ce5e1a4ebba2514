/* hostlist — a job's node names as the results file writes them: in
 * allocation order, comma-separated, with runs of names that differ only in
 * a numeric suffix compressed the Slurm way ("r1-n3,r1-n4,r1-n5,r1-n7,r2-n0"
 * is "r1-n[3-5,7],r2-n0"; a suffix with a leading zero, "gpu01", is written
 * as it is).
 *
 * hostlist_init splits every node name of a cluster once (prefix, number)
 * and numbers the groups of names that share a prefix, so that formatting a
 * list compares integers only. Ownership: the struct is the caller's; it
 * borrows the cluster's node names (which must outlive it) and owns its
 * tables and its output buffer (valid until the next hostlist_format). */
#ifndef HL_HOSTLIST_H
#define HL_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

struct cluster;

struct hostlist {
	/* Per node of the cluster at init: the prefix's length, the numeric
	 * suffix (-1 when none counts) and the group (the same for the names
	 * with the same prefix). */
	int32_t *plen, *num, *grp;
	int32_t n;
	size_t maxname;   /* the longest name's length */
	char *buf;
	size_t len, cap;
};

/* 0, or -1 out of memory (the struct is then empty but usable: nodes are
 * split as they come, each its own group). */
int hostlist_init(struct hostlist *h, const struct cluster *cl);
void hostlist_fini(struct hostlist *h);
/* The list of nodes[0 .. n-1] (node indices of cl), NUL-terminated, its
 * length in *len. NULL out of memory. */
const char *hostlist_format(struct hostlist *h, const struct cluster *cl, const int32_t *nodes,
                            int n, size_t *len);

#endif
