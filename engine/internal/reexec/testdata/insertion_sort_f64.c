void insertion_sort_f64(double *a, int n) {
	for (int i = 1; i < n; i++) {
		double v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}
