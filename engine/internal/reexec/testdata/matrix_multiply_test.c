#include "check.h"
void matrix_multiply(const double *a, const double *b, double *c, int n, int m, int p);
int main(void) {
	double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12}, c[4] = {0};
	matrix_multiply(a, b, c, 2, 3, 2);
	CHECK_NEAR(c[0], 58, 1e-12);
	CHECK_NEAR(c[1], 64, 1e-12);
	CHECK_NEAR(c[2], 139, 1e-12);
	CHECK_NEAR(c[3], 154, 1e-12);
	double id[4] = {1, 0, 0, 1}, r[4];
	matrix_multiply(id, c, r, 2, 2, 2);
	CHECK_NEAR(r[3], 154, 1e-12);
	double x[1] = {3}, y[1] = {-2}, z[1] = {0};
	matrix_multiply(x, y, z, 1, 1, 1);
	CHECK_NEAR(z[0], -6, 1e-12);
	return 0;
}
