#include <stdlib.h>

long *power_set_sums(const int *a, int n, int *count) {
	if (n < 0 || n > 20)
		return NULL;
	int m = 1 << n;
	long *r = malloc(sizeof(long) * (size_t)m);
	if (!r)
		return NULL;
	for (int mask = 0; mask < m; mask++) {
		long s = 0;
		for (int i = 0; i < n; i++)
			if (mask & (1 << i))
				s += a[i];
		r[mask] = s;
	}
	*count = m;
	return r;
}
