#include <stddef.h>
#include <stdint.h>

int hamming_distance(const uint8_t *a, const uint8_t *b, size_t n) {
	int d = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t x = a[i] ^ b[i];
		while (x) {
			d += x & 1;
			x >>= 1;
		}
	}
	return d;
}
