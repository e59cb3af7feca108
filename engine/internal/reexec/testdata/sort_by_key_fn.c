void sort_by_key_fn(int *a, int n, int (*key)(int)) {
	for (int i = 1; i < n; i++) {
		int v = a[i], kv = key(v), j = i - 1;
		while (j >= 0 && key(a[j]) > kv) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}
