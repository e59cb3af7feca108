#include "check.h"
double bisect_root(double (*f)(double), double lo, double hi, double tol);
static double cubic(double x) { return x * x * x - 2 * x - 5; }
static double lin(double x) { return x - 3; }
int main(void) {
	CHECK_NEAR(bisect_root(cubic, 2, 3, 1e-12), 2.0945514815423265, 1e-9);
	CHECK_NEAR(bisect_root(lin, 0, 10, 1e-12), 3.0, 1e-9);
	CHECK_NEAR(bisect_root(lin, 3, 10, 1e-12), 3.0, 1e-12);
	CHECK_NEAR(bisect_root(lin, 0, 3, 1e-12), 3.0, 1e-12);
	CHECK_NEAR(bisect_root(lin, 4, 10, 1e-12), -1.0, 1e-12);
	CHECK_NEAR(bisect_root(cos, 0, 3, 1e-12), 1.5707963267948966, 1e-9);
	return 0;
}
