#include "check.h"
#include <stdint.h>
int max_abs_diff_i16(const int16_t *a, const int16_t *b, int n);
int main(void) {
	int16_t a[19], b[19];
	for (int i = 0; i < 19; i++) {
		a[i] = (int16_t)(i * 10);
		b[i] = (int16_t)(i * 9);
	}
	CHECK(max_abs_diff_i16(a, b, 19) == 18);
	CHECK(max_abs_diff_i16(a, b, 0) == 0);
	CHECK(max_abs_diff_i16(a, a, 19) == 0);
	a[7] = -32768;
	b[7] = 32767;
	CHECK(max_abs_diff_i16(a, b, 19) == 65535);
	CHECK(max_abs_diff_i16(b, a, 8) == 65535);
	CHECK(max_abs_diff_i16(a, b, 7) == 6);
	return 0;
}
