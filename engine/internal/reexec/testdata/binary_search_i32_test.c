#include "check.h"
#include <stdint.h>
int binary_search_i32(const int32_t *a, int n, int32_t key);
int main(void) {
	int32_t a[7] = {-10, -3, 0, 4, 8, 15, 2147483647};
	CHECK(binary_search_i32(a, 7, -10) == 0);
	CHECK(binary_search_i32(a, 7, 2147483647) == 6);
	CHECK(binary_search_i32(a, 7, 4) == 3);
	CHECK(binary_search_i32(a, 7, 5) == -1);
	CHECK(binary_search_i32(a, 0, 4) == -1);
	CHECK(binary_search_i32(a, 7, -11) == -1);
	CHECK(binary_search_i32(a + 5, 1, 15) == 0);
	return 0;
}
