#include "check.h"
void polar_to_cart(double r, double theta, double *x, double *y);
int main(void) {
	double x = 9, y = 9;
	polar_to_cart(1, 0, &x, &y);
	CHECK_NEAR(x, 1.0, 1e-12);
	CHECK_NEAR(y, 0.0, 1e-12);
	polar_to_cart(2, M_PI / 2, &x, &y);
	CHECK_NEAR(x, 0.0, 1e-12);
	CHECK_NEAR(y, 2.0, 1e-12);
	polar_to_cart(0, 1.234, &x, &y);
	CHECK_NEAR(x, 0.0, 1e-12);
	polar_to_cart(sqrt(2.0), M_PI / 4, &x, &y);
	CHECK_NEAR(x, 1.0, 1e-12);
	CHECK_NEAR(y, 1.0, 1e-12);
	return 0;
}
