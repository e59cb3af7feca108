#include <stddef.h>
#include <string.h>

long mem_find_byte_pair(const unsigned char *p, size_t n, unsigned char a, unsigned char b) {
	const unsigned char *cur = p;
	size_t left = n;
	while (left >= 2) {
		const unsigned char *hit = memchr(cur, a, left - 1);
		if (!hit)
			return -1;
		if (hit[1] == b)
			return hit - p;
		left -= (size_t)(hit - cur) + 1;
		cur = hit + 1;
	}
	return -1;
}
