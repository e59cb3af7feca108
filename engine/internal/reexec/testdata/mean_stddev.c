#include <math.h>

int mean_stddev(const double *v, int n, double *mean, double *sd) {
	if (n <= 0)
		return -1;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	double m = s / n, q = 0;
	for (int i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = sqrt(q / n);
	return 0;
}
