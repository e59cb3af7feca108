#include "check.h"
double kahan_sum(const double *v, long n);
int main(void) {
	double v[11] = {1.0};
	for (int i = 1; i < 11; i++)
		v[i] = 1e-16;
	CHECK(kahan_sum(v, 11) > 1.0); /* a naive sum stays at 1.0 */
	CHECK_NEAR(kahan_sum(v, 11), 1.000000000000001, 1e-16);
	CHECK_NEAR(kahan_sum(v, 0), 0.0, 0);
	CHECK_NEAR(kahan_sum(v, 1), 1.0, 0);
	double w[10];
	for (int i = 0; i < 10; i++)
		w[i] = 0.1;
	CHECK_NEAR(kahan_sum(w, 10), 1.0, 1e-15);
	double x[3] = {1e100, 1.0, -1e100};
	CHECK_NEAR(kahan_sum(x, 3), 0.0, 1.5);
	CHECK_NEAR(kahan_sum(w, 3), 0.3, 1e-15);
	return 0;
}
