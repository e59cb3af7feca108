int subset_sum_exists(const int *a, int n, int target) {
	if (target == 0)
		return 1;
	if (n == 0)
		return 0;
	if (a[n - 1] <= target && subset_sum_exists(a, n - 1, target - a[n - 1]))
		return 1;
	return subset_sum_exists(a, n - 1, target);
}
