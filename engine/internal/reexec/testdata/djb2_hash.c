#include <stdint.h>

uint32_t djb2_hash(const char *s) {
	uint32_t h = 5381;
	int c;
	while ((c = (unsigned char)*s++) != 0)
		h = h * 33 + (uint32_t)c;
	return h;
}
