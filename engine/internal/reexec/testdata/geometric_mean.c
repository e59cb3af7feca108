#include <math.h>

double geometric_mean(const double *v, int n) {
	if (n <= 0)
		return 0.0;
	double s = 0;
	for (int i = 0; i < n; i++) {
		if (v[i] <= 0)
			return -1.0;
		s += log(v[i]);
	}
	return exp(s / n);
}
