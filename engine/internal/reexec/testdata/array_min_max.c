void array_min_max(const long *a, int n, long *mn, long *mx) {
	if (n <= 0)
		return;
	long lo = a[0], hi = a[0];
	for (int i = 1; i < n; i++) {
		if (a[i] < lo)
			lo = a[i];
		else if (a[i] > hi)
			hi = a[i];
	}
	*mn = lo;
	*mx = hi;
}
