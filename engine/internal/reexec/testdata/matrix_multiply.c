void matrix_multiply(const double *a, const double *b, double *c, int n, int m, int p) {
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < p; j++) {
			double s = 0;
			for (int k = 0; k < m; k++)
				s += a[i * m + k] * b[k * p + j];
			c[i * p + j] = s;
		}
	}
}
