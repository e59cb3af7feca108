#include "check.h"
float fast_inv_sqrt(float x);
int main(void) {
	CHECK_NEAR(fast_inv_sqrt(1.0f), 1.0, 1e-4);
	CHECK_NEAR(fast_inv_sqrt(4.0f), 0.5, 1e-4);
	CHECK_NEAR(fast_inv_sqrt(100.0f), 0.1, 1e-4);
	CHECK_NEAR(fast_inv_sqrt(0.25f), 2.0, 1e-4);
	CHECK_NEAR(fast_inv_sqrt(2.0f), 0.70710678, 1e-4);
	return 0;
}
