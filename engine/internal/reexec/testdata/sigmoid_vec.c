#include <math.h>

void sigmoid_vec(const double *in, double *out, int n) {
	for (int i = 0; i < n; i++)
		out[i] = 1.0 / (1.0 + exp(-in[i]));
}
