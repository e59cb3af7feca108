double kahan_sum(const double *v, long n) {
	double s = 0, c = 0;
	for (long i = 0; i < n; i++) {
		double y = v[i] - c;
		double t = s + y;
		c = (t - s) - y;
		s = t;
	}
	return s;
}
