/* livelog — the live daemon's log lines and the escaping of untrusted text
 * shown on a terminal.
 *
 * A daemon log line (stderr) is
 *   hetlab live: 2025-03-01T09:30:00.123Z warn [12.345 s] node h1: reading refused: ...
 * with the wall-clock time (ISO 8601, UTC, milliseconds), the level (info,
 * warn, error) and the engine's time. The message is escaped whole (see
 * live_escape), so a job name, a path or a command's output carrying a
 * newline or a terminal escape sequence can neither forge a second line
 * nor drive the terminal. live_log and live_logl (live_int.h) write them;
 * this header is what other modules (the state's `hetlab queue` table) and
 * tests use. */
#ifndef HL_LIVE_LIVELOG_H
#define HL_LIVE_LIVELOG_H

#include <stddef.h>
#include <stdint.h>

enum live_level { LIVE_INFO, LIVE_WARN, LIVE_ERROR };

const char *live_level_name(enum live_level l);

/* Copies src into dst (NUL-terminated, cut to len) with every byte a
 * terminal could act on written out: control characters as \n, \r, \t or
 * \xHH, DEL as \x7f, bytes that are not valid UTF-8 as \xHH, the C1
 * controls (U+0080..U+009F) and the bidirectional overrides (U+202A..E,
 * U+2066..9) as \uHHHH. Printable text and valid UTF-8 pass unchanged.
 * Returns the length written. */
size_t live_escape(char *dst, size_t len, const char *src);

/* The log line's prefix for wall-clock time unix_us, level and engine
 * time now_s: "hetlab live: 2025-03-01T09:30:00.123Z info [12.345 s] ".
 * Returns the length written (cut to len). */
size_t live_log_prefix(char *dst, size_t len, int64_t unix_us, enum live_level l, double now_s);

/* Writes one log line (prefix, then the message escaped) to stderr. For
 * a thread other than the loop's, now_s is the engine's clock read from
 * the wall clock. */
void live_log_write(enum live_level l, double now_s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
