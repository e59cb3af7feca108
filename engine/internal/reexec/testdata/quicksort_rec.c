void quicksort_rec(int *a, int lo, int hi) {
	if (lo >= hi)
		return;
	int p = a[lo + (hi - lo) / 2], i = lo, j = hi;
	while (i <= j) {
		while (a[i] < p)
			i++;
		while (a[j] > p)
			j--;
		if (i <= j) {
			int t = a[i];
			a[i] = a[j];
			a[j] = t;
			i++;
			j--;
		}
	}
	quicksort_rec(a, lo, j);
	quicksort_rec(a, i, hi);
}
