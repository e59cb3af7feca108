#include "check.h"
double newton_sqrt(double x);
int main(void) {
	CHECK_NEAR(newton_sqrt(4), 2.0, 1e-12);
	CHECK_NEAR(newton_sqrt(2), 1.4142135623730951, 1e-12);
	CHECK_NEAR(newton_sqrt(0), 0.0, 1e-12);
	CHECK_NEAR(newton_sqrt(-3), -1.0, 1e-12);
	CHECK_NEAR(newton_sqrt(1e-4), 1e-2, 1e-12);
	CHECK_NEAR(newton_sqrt(1e10), 1e5, 1e-12);
	return 0;
}
