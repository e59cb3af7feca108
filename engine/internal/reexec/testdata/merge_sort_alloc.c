#include <stdlib.h>
#include <string.h>

int merge_sort_alloc(int *a, int n) {
	int *tmp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!tmp)
		return -1;
	for (int width = 1; width < n; width *= 2) {
		for (int lo = 0; lo < n; lo += 2 * width) {
			int mid = lo + width < n ? lo + width : n;
			int hi = lo + 2 * width < n ? lo + 2 * width : n;
			int i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, sizeof(int) * (size_t)n);
	}
	free(tmp);
	return 0;
}
