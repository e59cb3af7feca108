#include "check.h"
void softmax_inplace(double *v, int n);
int main(void) {
	double v[3] = {1, 2, 3};
	softmax_inplace(v, 3);
	CHECK_NEAR(v[0], 0.09003057317038046, 1e-12);
	CHECK_NEAR(v[1], 0.24472847105479767, 1e-12);
	CHECK_NEAR(v[2], 0.6652409557748219, 1e-12);
	double w[2] = {1000, 1000};
	softmax_inplace(w, 2);
	CHECK_NEAR(w[0], 0.5, 1e-12);
	double u[1] = {-5};
	softmax_inplace(u, 1);
	CHECK_NEAR(u[0], 1.0, 1e-12);
	return 0;
}
