int irreducible_scan(const int *a, int n, int start_inside) {
	int i = 0, acc = 0;
	if (start_inside)
		goto inside;
	while (i < n) {
		acc += a[i];
	inside:
		if (acc > 100)
			return -acc;
		acc ^= i;
		i++;
	}
	return acc;
}
