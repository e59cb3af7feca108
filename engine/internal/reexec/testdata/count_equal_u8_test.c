#include "check.h"
#include <stddef.h>
#include <stdint.h>
size_t count_equal_u8(const uint8_t *a, size_t n, uint8_t v);
int main(void) {
	uint8_t a[100];
	for (int i = 0; i < 100; i++)
		a[i] = (uint8_t)(i % 7);
	CHECK(count_equal_u8(a, 100, 0) == 15);
	CHECK(count_equal_u8(a, 100, 6) == 14);
	CHECK(count_equal_u8(a, 100, 7) == 0);
	CHECK(count_equal_u8(a, 0, 0) == 0);
	CHECK(count_equal_u8(a, 7, 3) == 1);
	a[50] = 0xff;
	CHECK(count_equal_u8(a, 100, 0xff) == 1);
	return 0;
}
