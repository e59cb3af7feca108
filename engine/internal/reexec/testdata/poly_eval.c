double poly_eval(const double *coef, int n, double x) {
	double r = 0.0;
	for (int i = n - 1; i >= 0; i--)
		r = r * x + coef[i];
	return r;
}
