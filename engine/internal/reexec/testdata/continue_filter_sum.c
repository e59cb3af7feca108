long continue_filter_sum(const int *a, int n, int skip_mult) {
	long s = 0;
	for (int i = 0; i < n; i++) {
		if (a[i] < 0)
			continue;
		if (skip_mult > 0 && a[i] % skip_mult == 0)
			continue;
		if (a[i] > 1000)
			break;
		s += a[i];
	}
	return s;
}
