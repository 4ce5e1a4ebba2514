/* prioclass — Kubernetes PriorityClass names mapped onto hetlab's job
 * classes, the tiers of the tiered policy (inference > training > batch >
 * dev: docs/policies.md): a trace line's "priority_class" sets its class.
 * The table (docs/labels.md "Priority classes") has Kubernetes' built-in
 * classes, the classes NVIDIA Run:ai installs (inference, train, build,
 * interactive-preemptible) and common site names, and each class's own
 * name. */
#ifndef HL_PRIOCLASS_H
#define HL_PRIOCLASS_H

/* The enum job_class of a PriorityClass name, or -1 when it is not one. */
int prioclass_parse(const char *name);
/* "name=class, ..." of the whole table, for messages and docs. */
const char *prioclass_list(void);

#endif
