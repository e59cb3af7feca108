#include <stddef.h>

size_t str_length(const char *s) {
	const char *p = s;
	while (*p)
		p++;
	return (size_t)(p - s);
}
