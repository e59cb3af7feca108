long reduce_fn(const int *a, int n, long init, long (*op)(long, int)) {
	long acc = init;
	for (int i = 0; i < n; i++)
		acc = op(acc, a[i]);
	return acc;
}
