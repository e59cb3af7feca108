#include "check.h"
void sigmoid_vec(const double *in, double *out, int n);
int main(void) {
	double in[4] = {0, 2, -2, 40}, out[4] = {9, 9, 9, 9};
	sigmoid_vec(in, out, 4);
	CHECK_NEAR(out[0], 0.5, 1e-12);
	CHECK_NEAR(out[1], 0.8807970779778823, 1e-12);
	CHECK_NEAR(out[2], 0.11920292202211755, 1e-12);
	CHECK_NEAR(out[3], 1.0, 1e-12);
	out[0] = 7;
	sigmoid_vec(in, out, 0);
	CHECK_NEAR(out[0], 7.0, 0);
	return 0;
}
