int majority_element(const int *a, int n, int *out) {
	int cand = 0, count = 0;
	for (int i = 0; i < n; i++) {
		if (count == 0)
			cand = a[i];
		count += a[i] == cand ? 1 : -1;
	}
	count = 0;
	for (int i = 0; i < n; i++)
		if (a[i] == cand)
			count++;
	if (count * 2 <= n)
		return 0;
	*out = cand;
	return 1;
}
