#include "check.h"
void vec_scale_add(double *y, const double *x, double a, int n);
int main(void) {
	double y[6] = {1, 1, 1, 1, 1, 1}, x[6] = {1, 2, 3, 4, 5, 6};
	vec_scale_add(y, x, 2.0, 6);
	CHECK_NEAR(y[0], 3.0, 1e-12);
	CHECK_NEAR(y[5], 13.0, 1e-12);
	vec_scale_add(y, x, 0.0, 6);
	CHECK_NEAR(y[2], 7.0, 1e-12);
	vec_scale_add(y, x, -1.0, 2);
	CHECK_NEAR(y[0], 2.0, 1e-12);
	CHECK_NEAR(y[1], 3.0, 1e-12);
	CHECK_NEAR(y[2], 7.0, 1e-12);
	vec_scale_add(y, x, 5.0, 0);
	CHECK_NEAR(y[3], 9.0, 1e-12);
	return 0;
}
