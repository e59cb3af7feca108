#include <stddef.h>
#include <string.h>

size_t strncpy_safe(char *dst, const char *src, size_t cap) {
	size_t n = strlen(src);
	if (cap == 0)
		return n;
	size_t k = n < cap - 1 ? n : cap - 1;
	memcpy(dst, src, k);
	dst[k] = '\0';
	return n;
}
