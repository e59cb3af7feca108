#include "check.h"
float lerp_clamped(float a, float b, float t);
int main(void) {
	CHECK_NEAR(lerp_clamped(0, 10, 0.5f), 5.0, 1e-6);
	CHECK_NEAR(lerp_clamped(0, 10, -1), 0.0, 1e-6);
	CHECK_NEAR(lerp_clamped(0, 10, 2), 10.0, 1e-6);
	CHECK_NEAR(lerp_clamped(-4, 4, 0.25f), -2.0, 1e-6);
	CHECK_NEAR(lerp_clamped(3, 3, 0.7f), 3.0, 1e-6);
	return 0;
}
