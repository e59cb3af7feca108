#include "check.h"
int mean_stddev(const double *v, int n, double *mean, double *sd);
int main(void) {
	double v[8] = {2, 4, 4, 4, 5, 5, 7, 9}, m = -1, s = -1;
	CHECK(mean_stddev(v, 8, &m, &s) == 0);
	CHECK_NEAR(m, 5.0, 1e-12);
	CHECK_NEAR(s, 2.0, 1e-12);
	CHECK(mean_stddev(v, 1, &m, &s) == 0);
	CHECK_NEAR(m, 2.0, 1e-12);
	CHECK_NEAR(s, 0.0, 1e-12);
	CHECK(mean_stddev(v, 0, &m, &s) == -1);
	return 0;
}
