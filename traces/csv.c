/* csv — see csv.h. */
#include "traces/csv.h"

#include <string.h>

int csv_split(const char *line, const char **tok, size_t *len, int max)
{
	int n = 0;
	for (const char *s = line;;) {
		const char *e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (n < max) {
			tok[n] = s;
			len[n] = (size_t)(e - s);
		}
		n++;
		if (!*e)
			return n;
		s = e + 1;
	}
}

const char *csv_skip_bom(const char *line)
{
	return strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? line + 3 : line;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

bool csv_name_ok(const char *s, size_t n, size_t max, bool colon)
{
	if (n == 0 || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!word_char(s[i]) && !(colon && s[i] == ':'))
			return false;
	return true;
}
