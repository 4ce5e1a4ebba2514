/* taint — Kubernetes-style taints on nodes and tolerations on jobs
 * (docs/labels.md "Taints and tolerations").
 *
 * A taint is KEY[=VALUE]:EFFECT with EFFECT one of NoSchedule (no job that
 * does not tolerate it is placed on the node), PreferNoSchedule (such a job
 * goes there only when no untainted node fits) and NoExecute (as
 * NoSchedule: node labels are static over a run, so nothing is ever
 * evicted by a taint appearing). A node's taints are its label
 * "node.taints", a comma-separated list (sim/nodelabels.c).
 *
 * A toleration is KEY=VALUE[:EFFECT] (operator Equal), KEY[:EFFECT]
 * (operator Exists), or * / *:EFFECT (an empty key with Exists: every
 * taint, or every taint of that effect). A job's tolerations are the
 * comma-separated list `req.tolerations` of its trace line.
 *
 * Keys follow the label key rules, values the label bare-word rules.
 * Parsing allocates the lists (owned by the caller, freed with the _free
 * functions); matching allocates nothing. */
#ifndef HL_TAINT_H
#define HL_TAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum taint_effect { TAINT_NO_SCHEDULE, TAINT_PREFER_NO_SCHEDULE, TAINT_NO_EXECUTE, TAINT_NEFFECT };

struct taint {
	char *key;      /* owned */
	char *value;    /* owned; "" when none */
	int effect;     /* enum taint_effect */
};

struct toleration {
	char *key;      /* owned; NULL: any key (the "*" form) */
	char *value;    /* owned; NULL: operator Exists */
	int effect;     /* enum taint_effect, or -1: every effect */
};


/* Parses a comma-separated list (blanks allowed around items). An empty
 * text is an empty list (*n 0, *out NULL). 0, or -1 with a message naming
 * the item and what was expected (or ENOMEM). */
int taint_parse(const char *text, struct taint **out, int32_t *n, char *err, size_t errlen);
void taint_free(struct taint *t, int32_t n);
int toleration_parse(const char *text, struct toleration **out, int32_t *n, char *err, size_t errlen);
void toleration_free(struct toleration *t, int32_t n);

/* Does one of the tolerations tolerate taint t? */
bool toleration_covers(const struct toleration *tl, int32_t ntl, const struct taint *t);

#endif
