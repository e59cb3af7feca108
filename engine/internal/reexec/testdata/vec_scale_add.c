void vec_scale_add(double *y, const double *x, double a, int n) {
	for (int i = 0; i < n; i++)
		y[i] += a * x[i];
}
