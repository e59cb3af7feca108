int interpolation_search(const long *a, int n, long key) {
	int lo = 0, hi = n - 1;
	while (lo <= hi && key >= a[lo] && key <= a[hi]) {
		if (a[hi] == a[lo])
			return a[lo] == key ? lo : -1;
		int pos = lo + (int)((double)(hi - lo) * (double)(key - a[lo]) / (double)(a[hi] - a[lo]));
		if (a[pos] == key)
			return pos;
		if (a[pos] < key)
			lo = pos + 1;
		else
			hi = pos - 1;
	}
	return -1;
}
