#include <stddef.h>

const char *str_find_last(const char *hay, const char *needle) {
	const char *last = NULL;
	if (*needle == '\0')
		return hay;
	for (const char *h = hay; *h; h++) {
		const char *a = h, *b = needle;
		while (*a && *b && *a == *b) {
			a++;
			b++;
		}
		if (*b == '\0')
			last = h;
	}
	return last;
}
