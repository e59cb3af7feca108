void apply_to_each(int *a, int n, int (*f)(int, void *), void *ctx) {
	for (int i = 0; i < n; i++)
		a[i] = f(a[i], ctx);
}
