/* mig — NVIDIA Multi-Instance GPU geometry and per-card layout state.
 *
 * A MIG-capable card has a fixed number of memory slices (8 on A100/H100/
 * H20/H200) laid out in a row, and a smaller number of compute slices (7).
 * A GPU instance profile ("3g.40gb") takes `compute_slices` compute slices
 * and `memory_slices` consecutive memory slices, and may start only at
 * certain memory-slice positions (`nvidia-smi mig -lgipp`). The geometry of
 * each card is data (scenarios/catalog/mig.json, read by config/migcfg.c,
 * documented in docs/catalog.md "MIG geometry"); this module holds it in
 * plain structs and keeps the state of one card's layout: which memory
 * slices each instance occupies.
 *
 * Rules a placement must meet, checked in this order by mig_can_place:
 *   1. the start is one of the profile's listed starts       (MIG_ESTART)
 *   2. the profile has fewer than max_instances instances     (MIG_EMAX)
 *   3. its memory slices [start, start + memory_slices) are free (MIG_EOVERLAP)
 *   4. the compute slices in use plus its own fit the card    (MIG_ECOMPUTE)
 * Re-slicing (replacing the whole layout) is allowed only while no instance
 * is busy, and costs the caller-configured re-slice time.
 *
 * Ownership: a struct mig_layout is caller-owned storage; it borrows its
 * struct mig_card, which must outlive it. Nothing here allocates: place,
 * remove, first_fit and reslice are pure functions over that storage, safe
 * on the engine's hot path. */
#ifndef HL_MIG_H
#define HL_MIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cluster.h"
#include "sim/simtime.h"

#define MIG_SLICES_MAX    8    /* memory slices per card (one bit each in a uint8_t) */
#define MIG_PROFILES_MAX 16    /* profiles per card */
#define MIG_CARDS_MAX    32    /* cards in a geometry table */
#define MIG_NAME_MAX     24    /* "7g.141gb+me" and the like */
#define MIG_SOURCE_MAX  640

/* Results: 0 is success; each refusal has its own negative code. */
enum mig_err {
	MIG_OK = 0,
	MIG_EPROFILE = -1,   /* no such profile index on this card */
	MIG_ESTART = -2,     /* the profile may not start at this memory slice */
	MIG_EMAX = -3,       /* the profile already has max_instances instances */
	MIG_EOVERLAP = -4,   /* a memory slice it needs is taken */
	MIG_ECOMPUTE = -5,   /* not enough free compute slices */
	MIG_ENOENT = -6,     /* no such instance */
	MIG_EBUSY = -7,      /* the instance (or, for reslice, the card) is busy */
	MIG_ENOFIT = -8,     /* reslice: the requested profiles do not fit together */
};

struct mig_profile {
	char name[MIG_NAME_MAX];      /* "3g.40gb" */
	int32_t compute_slices;       /* of the card's compute_slices */
	int32_t memory_slices;        /* consecutive, of the card's memory_slices */
	double mem_gib;               /* nominal memory, from the profile's name */
	int32_t max_instances;        /* at most this many at once on one card */
	uint8_t start_mask;           /* bit s: may start at memory slice s */
	bool media_ext;               /* a "+me" media-extension variant */
};

struct mig_card {
	char gpu[HL_NAME_MAX];        /* catalog GPU name, e.g. "A100-SXM-80GB" */
	int32_t compute_slices;       /* 7 */
	int32_t memory_slices;        /* 8 */
	int32_t nprofiles;
	struct mig_profile profiles[MIG_PROFILES_MAX];
	char source[MIG_SOURCE_MAX];
};

struct mig_geometry {
	int32_t ncards;
	struct mig_card cards[MIG_CARDS_MAX];
};

struct mig_instance {
	int16_t profile;              /* index into card->profiles; -1: slot unused */
	int8_t start;                 /* first memory slice */
	bool busy;                    /* holds work: may not be removed or resliced */
};

/* One card's layout. At most MIG_SLICES_MAX instances (each takes at least
 * one memory slice); an instance id is its slot index, stable until removed. */
struct mig_layout {
	const struct mig_card *card;  /* borrowed */
	simtime reslice_us;           /* what one re-slice costs (configurable) */
	int8_t owner[MIG_SLICES_MAX]; /* instance id holding each memory slice, -1 free */
	struct mig_instance inst[MIG_SLICES_MAX];
	int32_t ninst;                /* instances in use */
	int32_t compute_used;         /* compute slices in use */
	int32_t nbusy;                /* busy instances */
};

/* The card named gpu in g, or NULL. */
const struct mig_card *mig_find_card(const struct mig_geometry *g, const char *gpu);
/* The index of the profile named name on card, or -1. */
int mig_find_profile(const struct mig_card *card, const char *name);
/* A short text for a mig_err code. */
const char *mig_strerror(int err);

/* Empties l for card (all slices free) with the given re-slice cost. */
void mig_layout_init(struct mig_layout *l, const struct mig_card *card, simtime reslice_us);

/* MIG_OK if profile can be placed at memory slice start now, else why not. */
int mig_can_place(const struct mig_layout *l, int profile, int start);
/* Places profile at start: the new instance id (>= 0), or a mig_err (< 0)
 * with l unchanged. */
int mig_place(struct mig_layout *l, int profile, int start);
/* Removes instance id: MIG_OK, MIG_ENOENT, or MIG_EBUSY (holds work). */
int mig_remove(struct mig_layout *l, int id);
/* The lowest start at which profile can be placed now, or -1. */
int mig_first_fit(const struct mig_layout *l, int profile);
/* Marks instance id as holding work (or not): MIG_OK or MIG_ENOENT. */
int mig_set_busy(struct mig_layout *l, int id, bool busy);
/* True when no instance holds work (an empty card is idle). */
bool mig_idle(const struct mig_layout *l);

/* Replaces the whole layout by instances of the n profiles in profiles[]
 * (indices, any order; placed largest first, each at its first fit).
 * Allowed only on an idle card: MIG_EBUSY otherwise, MIG_ENOFIT when the
 * set does not fit (MIG_EPROFILE for a bad index); l is unchanged on any
 * error. On success *cost_us (may be NULL) is l->reslice_us, the time the
 * card is unavailable. */
int mig_reslice(struct mig_layout *l, const int *profiles, int n, simtime *cost_us);

/* Full layouts: sets of placements to which no further instance can be
 * added (maximal). Calls fn (may be NULL) once per distinct layout, with
 * that layout, and returns how many there are. Profiles marked media_ext
 * are used only when with_media_ext is true. Stops early and returns the
 * count so far when fn returns non-zero. */
typedef int (*mig_layout_fn)(const struct mig_layout *l, void *ctx);
long mig_enumerate(const struct mig_card *card, bool with_media_ext, mig_layout_fn fn, void *ctx);

/* Writes l as "3g.40gb@0 2g.20gb@4 1g.10gb@6" (by start) into buf. */
void mig_layout_format(const struct mig_layout *l, char *buf, size_t len);

#endif
