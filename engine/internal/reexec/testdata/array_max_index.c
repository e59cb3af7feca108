int array_max_index(const int *a, int n) {
	if (n <= 0)
		return -1;
	int best = 0;
	for (int i = 1; i < n; i++)
		if (a[i] > a[best])
			best = i;
	return best;
}
