#include <stdint.h>

void shell_sort_i64(int64_t *a, int n) {
	for (int gap = n / 2; gap > 0; gap /= 2) {
		for (int i = gap; i < n; i++) {
			int64_t v = a[i];
			int j = i;
			while (j >= gap && a[j - gap] > v) {
				a[j] = a[j - gap];
				j -= gap;
			}
			a[j] = v;
		}
	}
}
