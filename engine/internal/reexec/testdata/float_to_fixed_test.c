#include "check.h"
#include <stdint.h>
int32_t float_to_fixed(double v, int frac_bits);
int main(void) {
	CHECK(float_to_fixed(1.0, 16) == 65536);
	CHECK(float_to_fixed(-1.5, 8) == -384);
	CHECK(float_to_fixed(0.0, 16) == 0);
	CHECK(float_to_fixed(1e10, 16) == INT32_MAX);
	CHECK(float_to_fixed(-1e10, 16) == INT32_MIN);
	CHECK(float_to_fixed(0.3, 4) == 5);
	CHECK(float_to_fixed(-0.3, 4) == -5);
	return 0;
}
