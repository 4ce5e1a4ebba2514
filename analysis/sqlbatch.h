/* sqlbatch — rows for one SQLite table, buffered and inserted many at a time.
 *
 * One INSERT statement per row costs a statement execution per row; the
 * recorder writes hundreds of thousands of small rows, so it buffers them:
 * sqlbatch_row() hands out the values of the next row of the current buffer
 * (`cap` rows), and a buffer is written by a prepared multi-row INSERT
 * ("VALUES (...), (...), ...") of `per` rows (at most SQLBATCH_ROWS) as many
 * times as it fills it, the rest a row at a time. Text values are copied into the buffer (or, for strings
 * that outlive it, borrowed with sqlbatch_static), so the caller's strings
 * can be reused at once. Nothing is allocated per row once the buffers have
 * grown.
 *
 * A full buffer can be written on another thread: sqlbatch_take() detaches
 * it (the batch goes on with a recycled or new one), sqlbatch_write() writes
 * it there, and sqlbatch_give() recycles it; the free list is the only state
 * both threads touch, under the batch's mutex. Each buffer carries a
 * struct workq_item for that (analysis/workq.h). The SQLite statements are
 * used by one thread at a time: the caller sees to it.
 *
 * Ownership: the batch borrows the sqlite3 handle, owns its statements and
 * buffers; sqlbatch_fini releases them (unwritten rows are dropped). Errors
 * carry sqlite3_errmsg. */
#ifndef HL_SQLBATCH_H
#define HL_SQLBATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analysis/workq.h"

#define SQLBATCH_ROWS 64

/* SB_AUX: a value the owner computes later from bytes it put in the
 * buffer's aux area (u.t: where they are), before the buffer is written;
 * one left so is written as NULL. */
enum { SB_NULL, SB_INT, SB_REAL, SB_TEXT, SB_STATIC, SB_AUX };

struct sqlbatch_val {
	uint8_t type;
	union {
		int64_t i;
		double d;
		struct { size_t off, len; } t;   /* SB_TEXT: bytes in the buffer's text */
		const char *s;                   /* SB_STATIC: a NUL-terminated string that outlives the batch */
	} u;
};

struct sqlbatch;

struct sqlbatch_buf {
	struct workq_item item;      /* first: a buffer is a work item */
	struct sqlbatch *owner;
	struct sqlbatch_val *v;      /* cap rows of ncol values */
	int rows;
	char *text;
	size_t tlen, tcap;
	unsigned char *aux;          /* the owner's bytes for SB_AUX values, 8-byte aligned pieces */
	size_t auxlen, auxcap;
	bool oom;
	struct sqlbatch_buf *next_free;
};

struct sqlbatch {
	sqlite3 *db;
	sqlite3_stmt *one, *many;
	/* What each parameter of each statement is bound to now (a statement
	 * keeps its parameters across sqlite3_reset): a value bound already
	 * is not bound again. SB_TEXT here: text in a buffer, bound again. */
	struct sqlbatch_val *one_b, *many_b;
	sqlite3_stmt *auto_one, *auto_many;   /* the same without column 0 (sqlbatch_rowid_first) */
	struct sqlbatch_val *auto_one_b, *auto_many_b;
	bool any;                    /* a row was inserted (the table is not empty) */
	int64_t max_rowid;           /* the largest column 0 inserted, with sqlbatch_rowid_first */
	int ncol, per, cap;          /* columns, rows per INSERT, rows per buffer */
	int tag;                     /* the caller's: which table this is */
	struct sqlbatch_buf *cur;
	struct sqlbatch_buf *free;   /* recycled buffers, under mu */
	pthread_mutex_t mu;
	bool mu_ok;
	int64_t written;             /* rows inserted so far (by whichever thread writes) */
};

/* Prepares the inserts into table(cols) (cols: "a, b, c", ncol of them),
 * `per` rows an INSERT (1 .. SQLBATCH_ROWS), buffers of `cap` rows (a
 * multiple of per). 0, or -1 with err. */
int sqlbatch_init(struct sqlbatch *b, sqlite3 *db, const char *table, const char *cols, int ncol,
                  int per, int cap, char *err, size_t errlen);
/* Column 0 is the table's INTEGER PRIMARY KEY and the table is empty:
 * rows whose column 0 continues the table's largest rowid by 1 (1 first),
 * `per` at a time, are inserted without it and SQLite numbers them,
 * which it does without the uniqueness lookup an explicit key costs (a
 * quarter of an event row's insert); what is stored is the same. 0, or -1
 * with err. */
int sqlbatch_rowid_first(struct sqlbatch *b, const char *table, const char *cols, char *err,
                         size_t errlen);
void sqlbatch_fini(struct sqlbatch *b);
static inline bool sqlbatch_full(const struct sqlbatch *b)
{
	return b->cur->rows == b->cap;
}
/* The ncol values of a new row of the current buffer, all NULL; NULL when
 * the buffer is full (take or flush it first). */
struct sqlbatch_val *sqlbatch_row(struct sqlbatch *b);
/* Copies n bytes of s into the current buffer (s NULL: a NULL value). */
void sqlbatch_text(struct sqlbatch *b, struct sqlbatch_val *v, const char *s, size_t n);
/* The same into a given buffer (one detached by sqlbatch_take). */
void sqlbatch_buf_text(struct sqlbatch_buf *buf, struct sqlbatch_val *v, const char *s, size_t n);
/* n bytes of the current buffer's aux area for an SB_AUX value v (which it
 * marks so); NULL when out of memory (v is then NULL). */
void *sqlbatch_aux(struct sqlbatch *b, struct sqlbatch_val *v, size_t n);
/* Detaches the current buffer and starts another; NULL when out of memory. */
struct sqlbatch_buf *sqlbatch_take(struct sqlbatch *b);
/* Inserts buf's rows and empties it. 0, or -1 with err. */
int sqlbatch_write(struct sqlbatch *b, struct sqlbatch_buf *buf, char *err, size_t errlen);
/* Recycles a buffer detached by sqlbatch_take. */
void sqlbatch_give(struct sqlbatch *b, struct sqlbatch_buf *buf);

static inline void sqlbatch_int(struct sqlbatch_val *v, int64_t i)
{
	v->type = SB_INT;
	v->u.i = i;
}

static inline void sqlbatch_real(struct sqlbatch_val *v, double d)
{
	v->type = SB_REAL;
	v->u.d = d;
}

static inline void sqlbatch_static(struct sqlbatch_val *v, const char *s)
{
	v->type = s ? SB_STATIC : SB_NULL;
	v->u.s = s;
}

#endif
