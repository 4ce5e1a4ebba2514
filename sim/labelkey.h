/* labelkey — what a label key is (docs/labels.md "Keys"): the one rule that
 * node labels (sim/label.h) and taints and tolerations (sim/taint.h) both
 * check, kept below both so that neither calls the other for it.
 * No state, no allocation. */
#ifndef HL_LABELKEY_H
#define HL_LABELKEY_H

#include <stdbool.h>

#define LABEL_KEY_MAX 128   /* bytes of a key */

/* A key character: [A-Za-z0-9_.-/]. By hand: <ctype.h> depends on the
 * locale. */
static inline bool label_key_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-' || c == '/';
}

/* Is key a valid key: 1 to LABEL_KEY_MAX characters of [A-Za-z0-9_.-/]?
 * (Lets a caller tell a bad key from ENOMEM when labels_set fails.) */
bool labels_key_valid(const char *key);

#endif
