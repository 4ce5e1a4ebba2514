/* livelog — the daemon's log lines (live_log, live_logl) and live_escape.
 * See livelog.h. */
#include "live/livelog.h"
#include "live/live_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const level_names[] = { "info", "warn", "error" };

const char *live_level_name(enum live_level l)
{
	return (unsigned)l < sizeof level_names / sizeof level_names[0] ? level_names[l] : "info";
}

int64_t live_unix_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Length of the valid UTF-8 sequence at s (2..4), 0 when it is not one.
 * *cp gets the code point. */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	int n;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (int k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static bool cp_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t live_escape(char *dst, size_t len, const char *src)
{
	if (!len)
		return 0;
	size_t o = 0;
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	while (*s) {
		char tmp[12];
		const char *put = tmp;
		size_t n;
		uint32_t cp = 0;
		int u;
		if (*s == '\n' || *s == '\r' || *s == '\t') {
			tmp[0] = '\\';
			tmp[1] = *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't';
			n = 2;
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			n = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", *s);
			s++;
		} else if (*s < 0x80) {
			put = (const char *)s;
			n = 1;
			s++;
		} else if ((u = utf8_seq(s, &cp)) > 0) {
			if (cp_hidden(cp)) {
				n = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
			} else {
				put = (const char *)s;
				n = (size_t)u;
			}
			s += u;
		} else {
			n = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", *s);
			s++;
		}
		if (o + n >= len)
			break;
		memcpy(dst + o, put, n);
		o += n;
	}
	dst[o] = 0;
	return o;
}

size_t live_log_prefix(char *dst, size_t len, int64_t unix_us, enum live_level l, double now_s)
{
	time_t sec = (time_t)(unix_us / 1000000);
	struct tm tm;
	gmtime_r(&sec, &tm);
	int n = snprintf(dst, len, "hetlab live: %04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s [%.3f s] ", tm.tm_year + 1900,
	                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(unix_us % 1000000 / 1000),
	                 live_level_name(l), now_s);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

static void vwrite(enum live_level l, double now_s, const char *fmt, va_list ap)
{
	char msg[2048], esc[4096], pre[96];
	vsnprintf(msg, sizeof msg, fmt, ap);
	live_escape(esc, sizeof esc, msg);
	live_log_prefix(pre, sizeof pre, live_unix_us(), l, now_s);
	/* One call, so that lines of the daemon's threads never interleave. */
	fprintf(stderr, "%s%s\n", pre, esc);
}

void live_log_write(enum live_level l, double now_s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwrite(l, now_s, fmt, ap);
	va_end(ap);
}

static void vlog(struct live *L, enum live_level l, const char *fmt, va_list ap)
{
	if (L->o.quiet || L->mode != LIVE_DAEMON)
		return;
	/* Before the engine has caught up after a restart (the executor's
	 * start, the replay) its time is behind the last run's lines: those
	 * lines carry the time it resumes at (bind_state), never less. */
	if (L->s.now > L->log_us)
		L->log_us = L->s.now;
	vwrite(l, simtime_to_s(L->log_us), fmt, ap);
}

void live_log(struct live *L, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(L, LIVE_INFO, fmt, ap);
	va_end(ap);
}

void live_logl(struct live *L, enum live_level l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(L, l, fmt, ap);
	va_end(ap);
}
