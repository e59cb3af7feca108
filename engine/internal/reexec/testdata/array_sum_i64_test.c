#include "check.h"
#include <stdint.h>
int64_t array_sum_i64(const int32_t *a, int n);
int main(void) {
	int32_t a[5] = {1, -2, 3, 2147483647, 2147483647};
	CHECK(array_sum_i64(a, 0) == 0);
	CHECK(array_sum_i64(a, 1) == 1);
	CHECK(array_sum_i64(a, 3) == 2);
	CHECK(array_sum_i64(a, 5) == 4294967296LL);
	CHECK(array_sum_i64(a + 1, 1) == -2);
	int32_t big[100];
	for (int i = 0; i < 100; i++)
		big[i] = i;
	CHECK(array_sum_i64(big, 100) == 4950);
	return 0;
}
