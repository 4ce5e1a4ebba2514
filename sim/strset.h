/* strset — a set of names held elsewhere, for lookups in constant time.
 *
 * The set stores only each name's hash (FNV-1a) and the index its owner
 * gives it; the names themselves stay in the owner's array (rack names,
 * leaf switch names, node names, a workload's strings) and are read back
 * through a key function, so the owner may grow (realloc) its array
 * freely. Open addressing with linear probing, grown at half full.
 *
 * Ownership: the caller owns the struct; zero-initialised it is an empty
 * set; strset_fini frees it. Indexes are non-negative int32. */
#ifndef HL_STRSET_H
#define HL_STRSET_H

#include <stdint.h>

/* The name of index idx in the owner's array ctx. */
typedef const char *(*strset_key_fn)(const void *ctx, int32_t idx);

struct strset {
	int32_t *slot;          /* index + 1; 0 empty */
	uint32_t *hash;         /* the name's hash, beside its slot */
	uint32_t mask;          /* slots - 1 (a power of two minus one) */
	int32_t n;
};

uint32_t strset_hash(const char *s);
/* The index of name, or -1. */
int32_t strset_find(const struct strset *s, const char *name, strset_key_fn key, const void *ctx);
/* Adds idx under name (the caller has checked it is absent). 0, or -1 on ENOMEM. */
int strset_add(struct strset *s, const char *name, int32_t idx);
void strset_fini(struct strset *s);

#endif
