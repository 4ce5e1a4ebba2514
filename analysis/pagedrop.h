/* pagedrop — the page cache of a file that grows at its end, handed back
 * once the pages are on disk.
 *
 * The recorder writes its results file once, front to back: at 100,000
 * nodes 4.4 GB. Left to the kernel, every page of it stays cached until
 * memory runs short, each in a page frame the run touches for the first
 * time (on a virtual machine the host backs each such frame as it is
 * touched: that was 12 s of kernel time of a 100 s run), and the cache the
 * user had (their other files) is pushed out. So, as the file grows, its
 * pages well behind the end are queued for writeback
 * (sync_file_range(SYNC_FILE_RANGE_WRITE), which does not wait) and, a
 * while later, dropped from the cache (posix_fadvise(POSIX_FADV_DONTNEED),
 * which leaves dirty and in-flight pages alone): the frames are reused for
 * the pages that follow. PostgreSQL's *_flush_after settings do the same
 * for the same reasons.
 *
 * Nothing here can change the file's contents: the page cache stays
 * coherent, a dropped page that is read again comes from the disk. The
 * last (2 + lag) steps of the file stay cached, so a file under that size
 * (192 MiB by default) is never touched. Errors are ignored (on a file
 * system without writeback, tmpfs, both calls do nothing); pagedrop
 * never fails a run.
 *
 * The file is opened again, read-only and without following a link,
 * beside its writer (SQLite, whose descriptor is not ours). One thread
 * calls pagedrop_tick. */
#ifndef HL_PAGEDROP_H
#define HL_PAGEDROP_H

#include <sys/types.h>

#define PAGEDROP_STEP ((off_t)32 << 20)
#define PAGEDROP_LAG 4

struct pagedrop {
	int fd;          /* -1: off */
	off_t step;      /* bytes handled at a time */
	int lag;         /* steps between the start of writeback and the drop */
	off_t flushed;   /* writeback started for [0, flushed) */
	off_t dropped;   /* [0, dropped) handed back */
};

/* Opens path for pagedrop_tick; step > 0 bytes, lag >= 1 steps. When
 * the file cannot be opened pagedrop stays off (fd -1). */
void pagedrop_open(struct pagedrop *pd, const char *path, off_t step, int lag);
/* After a write: writeback starts for a step once the file has grown a
 * further step past it, and a step is dropped once writeback has started
 * for `lag` more steps after it. */
void pagedrop_tick(struct pagedrop *pd);
void pagedrop_close(struct pagedrop *pd);

#endif
