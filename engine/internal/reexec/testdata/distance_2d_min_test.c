#include "check.h"
int distance_2d_min(const double *xs, const double *ys, int n, double *best);
int main(void) {
	double xs[5] = {0, 10, 3, 20, 3.5}, ys[5] = {0, 10, 4, 0, 4}, b = 0;
	CHECK(distance_2d_min(xs, ys, 5, &b) == 2004);
	CHECK_NEAR(b, 0.5, 1e-12);
	CHECK(distance_2d_min(xs, ys, 3, &b) == 2);
	CHECK_NEAR(b, 5.0, 1e-12);
	b = 42;
	CHECK(distance_2d_min(xs, ys, 1, &b) == -1);
	CHECK_NEAR(b, 42.0, 0);
	return 0;
}
