#include "check.h"
int quadratic_roots(double a, double b, double c, double *r1, double *r2);
int main(void) {
	double x = 0, y = 0;
	CHECK(quadratic_roots(1, -3, 2, &x, &y) == 2);
	CHECK_NEAR(x, 1.0, 1e-12);
	CHECK_NEAR(y, 2.0, 1e-12);
	CHECK(quadratic_roots(1, 2, 1, &x, &y) == 1);
	CHECK_NEAR(x, -1.0, 1e-12);
	CHECK(quadratic_roots(1, 0, 1, &x, &y) == 0);
	CHECK(quadratic_roots(0, 2, -4, &x, &y) == 1);
	CHECK_NEAR(x, 2.0, 1e-12);
	CHECK(quadratic_roots(0, 0, 1, &x, &y) == 0);
	CHECK(quadratic_roots(2, 0, -8, &x, &y) == 2);
	CHECK_NEAR(x, -2.0, 1e-12);
	CHECK_NEAR(y, 2.0, 1e-12);
	return 0;
}
