void array_rotate_left(int *a, int n, int k) {
	if (n <= 0)
		return;
	k %= n;
	if (k < 0)
		k += n;
	for (int r = 0; r < k; r++) {
		int first = a[0];
		for (int i = 0; i + 1 < n; i++)
			a[i] = a[i + 1];
		a[n - 1] = first;
	}
}
