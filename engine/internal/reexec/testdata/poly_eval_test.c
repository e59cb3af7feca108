#include "check.h"
double poly_eval(const double *coef, int n, double x);
int main(void) {
	double c[4] = {1, -2, 0, 3}; /* 1 - 2x + 3x^3 */
	CHECK_NEAR(poly_eval(c, 4, 0), 1.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 4, 1), 2.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 4, 2), 21.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 4, -1), 0.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 0, 5), 0.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 2, 0.5), 0.0, 1e-12);
	CHECK_NEAR(poly_eval(c, 1, 9), 1.0, 1e-12);
	return 0;
}
