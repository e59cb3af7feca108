int array_equal_range(const int *a, int n, int key, int *first) {
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	int start = lo;
	hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (a[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = start;
	return lo - start;
}
