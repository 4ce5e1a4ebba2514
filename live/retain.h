/* retain — a live state's history kept bounded (docs/live.md "Retention
 * and archive"): the snapshots kept at points in time
 * (STATE_DIR/snapshots), and `hetlab state-prune`, which moves the rows
 * recorded before a kept snapshot into an archive beside the state
 * (STATE_DIR/archive/FROM-TO, itself a state directory: its state.db holds
 * the recording FROM..TO, the decisions and the ended jobs' rows of that
 * window, and the snapshot the window starts from) and then deletes them
 * from state.db.
 *
 * The state's meta says how far it was pruned: pruned_seq (every
 * recorded row up to it is in the archives), pruned_dseq (the same of the
 * decisions). lstate_rec_each and lstate_decisions (here, state.h) walk
 * the archives first, so that whatever reads the whole recording (the
 * replay, results.db) reads what it read before the prune; an archive
 * that is missing is an error naming it. Every function returns 0 or -1
 * with err. */
#ifndef HL_LIVE_RETAIN_H
#define HL_LIVE_RETAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A kept snapshot: STATE_DIR/snapshots/SEQ-DSEQ-NOW.snap, the recording's
 * row it covers up to, the last decision committed then, its engine time
 * (µs). */
struct lsnap_kept {
	int64_t seq, dseq, now_us;
	char name[64];
};

#define LSNAP_KEPT_DIR "snapshots"
#define LARCHIVE_DIR "archive"

/* The kept snapshots of the state in dir, oldest first (*v malloc'd). */
int lsnap_kept_list(const char *dir, struct lsnap_kept **v, int *n, char *err, size_t errlen);
/* Its file name under dir/snapshots. */
void lsnap_kept_name(char *out, size_t len, int64_t seq, int64_t dseq, int64_t now_us);

/* Writes buf atomically to dir/name (name.tmp, flushed, renamed, the
 * directory flushed). */
int lretain_write_file(const char *dir, const char *name, const void *buf, size_t n, char *err, size_t errlen);

/* `hetlab state-prune`: the rows recorded before the latest kept snapshot
 * whose time is at or before cutoff_unix (seconds) are archived, then
 * deleted; what was done is said on out. 0 (also when there is nothing to
 * prune), -1 with err. */
int lretain_prune(const char *dir, double cutoff_unix, FILE *out, char *err, size_t errlen);

#endif
