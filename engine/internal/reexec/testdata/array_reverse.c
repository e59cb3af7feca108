void array_reverse(int *a, int n) {
	for (int i = 0, j = n - 1; i < j; i++, j--) {
		int t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}
