int longest_increasing(const int *a, int n) {
	int tails[256], len = 0;
	if (n > 256)
		return -1;
	for (int i = 0; i < n; i++) {
		int lo = 0, hi = len;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (tails[mid] < a[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = a[i];
		if (lo == len)
			len++;
	}
	return len;
}
