#include "check.h"
double geometric_mean(const double *v, int n);
int main(void) {
	double v[3] = {1, 10, 100}, w[2] = {4, 0};
	CHECK_NEAR(geometric_mean(v, 3), 10.0, 1e-12);
	CHECK_NEAR(geometric_mean(v, 1), 1.0, 1e-12);
	CHECK_NEAR(geometric_mean(v + 1, 2), sqrt(1000.0), 1e-12);
	CHECK_NEAR(geometric_mean(v, 0), 0.0, 0);
	CHECK_NEAR(geometric_mean(w, 2), -1.0, 0);
	return 0;
}
