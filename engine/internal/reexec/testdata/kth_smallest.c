#include <stdlib.h>
#include <string.h>

int kth_smallest(const int *a, int n, int k, int *out) {
	if (k < 0 || k >= n)
		return -1;
	int *v = malloc(sizeof(int) * (size_t)n);
	if (!v)
		return -1;
	memcpy(v, a, sizeof(int) * (size_t)n);
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		int p = v[hi], s = lo;
		for (int i = lo; i < hi; i++) {
			if (v[i] < p) {
				int t = v[i];
				v[i] = v[s];
				v[s] = t;
				s++;
			}
		}
		int t = v[s];
		v[s] = v[hi];
		v[hi] = t;
		if (s == k)
			break;
		if (s < k)
			lo = s + 1;
		else
			hi = s - 1;
	}
	*out = v[k];
	free(v);
	return 0;
}
