#include "check.h"
#include <math.h>
double trapezoid_integral(double (*f)(double), double a, double b, int n);
static double sq(double x) { return x * x; }
static double lin(double x) { return 2 * x + 1; }
int main(void) {
	CHECK_NEAR(trapezoid_integral(lin, 0, 1, 1), 2.0, 1e-12);
	CHECK_NEAR(trapezoid_integral(lin, 0, 3, 7), 12.0, 1e-12);
	CHECK_NEAR(trapezoid_integral(sq, 0, 3, 3000), 9.0, 1e-5);
	CHECK_NEAR(trapezoid_integral(sin, 0, M_PI, 1000), 2.0, 1e-5);
	CHECK_NEAR(trapezoid_integral(sq, 0, 3, 0), 0.0, 1e-12);
	CHECK_NEAR(trapezoid_integral(sq, 1, 1, 10), 0.0, 1e-12);
	return 0;
}
