#include "check.h"
float cbrt_newton_f(float x);
int main(void) {
	CHECK_NEAR(cbrt_newton_f(27), 3, 1e-5);
	CHECK_NEAR(cbrt_newton_f(-8), -2, 1e-5);
	CHECK_NEAR(cbrt_newton_f(0), 0, 0);
	CHECK_NEAR(cbrt_newton_f(1), 1, 1e-5);
	CHECK_NEAR(cbrt_newton_f(0.001f), 0.1, 1e-5);
	CHECK_NEAR(cbrt_newton_f(1e6f), 100, 1e-5);
	return 0;
}
