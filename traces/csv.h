/* csv — the small pieces every CSV trace reader shares (openb, DLRM-style
 * inventories): splitting a line at commas without copying, a leading
 * UTF-8 byte-order mark, and the name check for identifier-like fields. */
#ifndef HL_CSV_H
#define HL_CSV_H

#include <stdbool.h>
#include <stddef.h>

/* Splits line at commas into at most max fields (pointer and length each,
 * not NUL-terminated); returns how many fields there are, which may exceed
 * max (the rest are not stored). */
int csv_split(const char *line, const char **tok, size_t *len, int max);
/* line past a UTF-8 byte-order mark, if it starts with one. */
const char *csv_skip_bom(const char *line);
/* A name: 1 .. max-1 characters of letters, digits, '_', '-', '.' (and ':'
 * when colon is true). */
bool csv_name_ok(const char *s, size_t n, size_t max, bool colon);

#endif
