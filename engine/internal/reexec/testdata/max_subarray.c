long max_subarray(const int *a, int n, int *start, int *len) {
	long best = a[0], cur = 0;
	int cs = 0, bs = 0, bl = 1;
	for (int i = 0; i < n; i++) {
		if (cur <= 0) {
			cur = a[i];
			cs = i;
		} else {
			cur += a[i];
		}
		if (cur > best) {
			best = cur;
			bs = cs;
			bl = i - cs + 1;
		}
	}
	*start = bs;
	*len = bl;
	return best;
}
