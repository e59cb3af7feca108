double dot_product(const double *a, const double *b, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}
