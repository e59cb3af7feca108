int knapsack_01(const int *w, const int *v, int n, int cap) {
	int best[1001];
	if (cap < 0 || cap > 1000)
		return -1;
	for (int c = 0; c <= cap; c++)
		best[c] = 0;
	for (int i = 0; i < n; i++)
		for (int c = cap; c >= w[i]; c--)
			if (best[c - w[i]] + v[i] > best[c])
				best[c] = best[c - w[i]] + v[i];
	return best[cap];
}
