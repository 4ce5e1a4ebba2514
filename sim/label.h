/* label — node labels and the label expressions jobs select nodes with.
 *
 * Every node carries key=value labels (strings; a value that parses as a
 * number also compares numerically; a value with commas is a list, as
 * "gpu.mig_profiles=1g.10gb,2g.20gb,..."). They are derived from the
 * catalog, the node type, the rack and the pools (sim/nodelabels.c) plus
 * free-form site labels from the scenario. Keys are interned once in a
 * dictionary shared by all nodes.
 *
 * A label expression is a conjunction of terms separated by commas, in
 * the spirit of Kubernetes node affinity and Slurm --constraint, or
 * several such conjunctions separated by "|", any of which may hold (the
 * ORed nodeSelectorTerms of Kubernetes) (docs/labels.md):
 *     key = v   key == v   key != v          equality (any list element)
 *     key in (a, b, c)    key notin (a, b)   set membership
 *     key >= n   key > n   key <= n   key < n   numeric comparison
 *     key                 !key               the key exists / does not
 * Keys are [A-Za-z0-9_.-/]+; values are bare words of [A-Za-z0-9_.+:/-]
 * or double-quoted strings. A required expression must hold on every node
 * a job gets; a preferred one scores each node by the number of its terms
 * the node meets (with alternatives, of the alternative it meets best).
 *
 * Nodes may also carry taints (sim/taint.h) and a selector compiled with
 * sel_compile_tol carries a job's tolerations: a required one then also
 * needs every NoSchedule/NoExecute taint of the node tolerated, a
 * preferred one ranks nodes whose PreferNoSchedule taints are tolerated
 * first among nodes meeting as many preferred terms.
 *
 * Ownership: a struct labels owns its strings; a struct selector owns its
 * compiled terms. Matching allocates nothing. */
#ifndef HL_LABEL_H
#define HL_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/labelkey.h"

struct labels;
struct selector;
struct taint;

/* LABEL_KEY_MAX and labels_key_valid(key): sim/labelkey.h. */

/* An empty store for nnodes nodes; NULL on ENOMEM. */
struct labels *labels_new(int32_t nnodes);
void labels_free(struct labels *L);
/* Room for more nodes (nodes joining at run time). 0 or -1. */
int labels_grow(struct labels *L, int32_t nnodes);
/* Sets key=val on node, replacing an earlier value of key. 0, or -1 when
 * out of memory or the key is not a valid key (see above). */
int labels_set(struct labels *L, int32_t node, const char *key, const char *val);
/* The value of key on node, or NULL. */
const char *labels_get(const struct labels *L, int32_t node, const char *key);
/* A node's labels, in the order they were first set: count, then i-th. */
int labels_count(const struct labels *L, int32_t node);
void labels_at(const struct labels *L, int32_t node, int i, const char **key, const char **val);

/* Replaces node's taints with the comma-separated list text (sim/taint.h;
 * "" none). 0, or -1 with a message naming the bad item (or ENOMEM). */
int labels_set_taints(struct labels *L, int32_t node, const char *text, char *err, size_t errlen);
/* Nodes with a NoSchedule/NoExecute taint (soft false) or with a
 * PreferNoSchedule one (soft true). */
int32_t labels_tainted(const struct labels *L, bool soft);

/* Compiles an expression; NULL with a message naming the column and what
 * was expected on a syntax error (or ENOMEM). An empty expression (only
 * blanks) compiles to one that every node meets. */
struct selector *sel_compile(const char *text, char *err, size_t errlen);
void sel_free(struct selector *S);
int sel_nterms(const struct selector *S);
/* An expression with a job's tolerations (a comma-separated list, NULL or
 * "" none): as a required selector (prefer false) or a preferred one. key,
 * when not NULL, is kept for sel_key (a cache's lookup). NULL with a
 * message on a syntax error in either. */
struct selector *sel_compile_tol(const char *expr, const char *tolerations, bool prefer, const char *key,
                                 char *err, size_t errlen);
const char *sel_key(const struct selector *S);
int sel_nalternatives(const struct selector *S);
/* Some alternative has every term holding on node (and, for a required
 * selector with tolerations, the node's hard taints are tolerated). */
bool sel_match(const struct selector *S, const struct labels *L, int32_t node);
/* How many terms hold on node. */
int sel_score(const struct selector *S, const struct labels *L, int32_t node);

#endif
