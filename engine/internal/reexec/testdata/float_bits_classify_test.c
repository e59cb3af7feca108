#include "check.h"
#include <float.h>
int float_bits_classify(float f);
int main(void) {
	CHECK(float_bits_classify(0.0f) == 0);
	CHECK(float_bits_classify(-0.0f) == 0);
	CHECK(float_bits_classify(FLT_MIN / 2) == 1);
	CHECK(float_bits_classify(1.5f) == 2);
	CHECK(float_bits_classify(INFINITY) == 3);
	CHECK(float_bits_classify(-INFINITY) == 3);
	CHECK(float_bits_classify(NAN) == 4);
	return 0;
}
