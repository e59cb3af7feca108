#include <string.h>

int permutations_count(int *a, int n, int k, int (*accept)(const int *, int)) {
	if (k == n)
		return accept(a, n) ? 1 : 0;
	int total = 0;
	for (int i = k; i < n; i++) {
		int t = a[k];
		a[k] = a[i];
		a[i] = t;
		total += permutations_count(a, n, k + 1, accept);
		t = a[k];
		a[k] = a[i];
		a[i] = t;
	}
	return total;
}
