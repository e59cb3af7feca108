#include <stddef.h>
#include <stdint.h>

size_t count_equal_u8(const uint8_t *a, size_t n, uint8_t v) {
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += a[i] == v;
	return c;
}
