#include "check.h"
double dot_product(const double *a, const double *b, int n);
int main(void) {
	double a[5] = {1, 2, 3, 4, 5}, b[5] = {5, 4, 3, 2, 1};
	CHECK_NEAR(dot_product(a, b, 5), 35.0, 1e-12);
	CHECK_NEAR(dot_product(a, a, 5), 55.0, 1e-12);
	CHECK_NEAR(dot_product(a, b, 0), 0.0, 1e-12);
	CHECK_NEAR(dot_product(a, b, 1), 5.0, 1e-12);
	CHECK_NEAR(dot_product(a + 4, b + 4, 1), 5.0, 1e-12);
	return 0;
}
