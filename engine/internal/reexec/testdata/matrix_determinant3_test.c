#include "check.h"
double matrix_determinant3(const double *m);
int main(void) {
	double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	CHECK_NEAR(matrix_determinant3(id), 1, 1e-12);
	double a[9] = {6, 1, 1, 4, -2, 5, 2, 8, 7};
	CHECK_NEAR(matrix_determinant3(a), -306, 1e-12);
	double s[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	CHECK_NEAR(matrix_determinant3(s), 0, 1e-12);
	double d[9] = {2, 0, 0, 0, 3, 0, 0, 0, 4};
	CHECK_NEAR(matrix_determinant3(d), 24, 1e-12);
	double sw[9] = {0, 1, 0, 1, 0, 0, 0, 0, 1};
	CHECK_NEAR(matrix_determinant3(sw), -1, 1e-12);
	return 0;
}
