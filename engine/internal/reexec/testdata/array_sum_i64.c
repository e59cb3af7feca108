#include <stdint.h>

int64_t array_sum_i64(const int32_t *a, int n) {
	int64_t s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
