/* labelkey — the label key rule (sim/labelkey.h). */
#include "sim/labelkey.h"

#include <stddef.h>

bool labels_key_valid(const char *key)
{
	size_t n = 0;
	for (; key[n]; n++)
		if (!label_key_char((unsigned char)key[n]) || n >= LABEL_KEY_MAX)
			return false;
	return n > 0;
}
