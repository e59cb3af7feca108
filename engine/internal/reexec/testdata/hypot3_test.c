#include "check.h"
double hypot3(double x, double y, double z);
int main(void) {
	CHECK_NEAR(hypot3(0, 0, 0), 0.0, 1e-12);
	CHECK_NEAR(hypot3(1, 2, 2), 3.0, 1e-12);
	CHECK_NEAR(hypot3(-2, 3, 6), 7.0, 1e-12);
	CHECK_NEAR(hypot3(1e3, 0, 0), 1e3, 1e-12);
	CHECK_NEAR(hypot3(0.5, 0.5, 0.5), sqrt(0.75), 1e-12);
	return 0;
}
