int find_if_index(const double *a, int n, int (*pred)(double)) {
	for (int i = 0; i < n; i++)
		if (pred(a[i]))
			return i;
	return -1;
}
