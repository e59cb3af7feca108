#include <stdint.h>

int binary_search_i32(const int32_t *a, int n, int32_t key) {
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (a[mid] == key)
			return mid;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}
