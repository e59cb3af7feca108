#include "check.h"
#include <stddef.h>
#include <stdint.h>
int hamming_distance(const uint8_t *a, const uint8_t *b, size_t n);
int main(void) {
	uint8_t a[4] = {0, 0xff, 0x0f, 0x80}, b[4] = {0, 0x00, 0xf0, 0x81};
	CHECK(hamming_distance(a, b, 4) == 17);
	CHECK(hamming_distance(a, b, 0) == 0);
	CHECK(hamming_distance(a, b, 1) == 0);
	CHECK(hamming_distance(a, a, 4) == 0);
	CHECK(hamming_distance(a + 1, b + 1, 1) == 8);
	CHECK(hamming_distance(a + 3, b + 3, 1) == 1);
	return 0;
}
