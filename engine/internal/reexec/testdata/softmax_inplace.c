#include <math.h>

void softmax_inplace(double *v, int n) {
	if (n <= 0)
		return;
	double mx = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] > mx)
			mx = v[i];
	double s = 0;
	for (int i = 0; i < n; i++) {
		v[i] = exp(v[i] - mx);
		s += v[i];
	}
	for (int i = 0; i < n; i++)
		v[i] /= s;
}
