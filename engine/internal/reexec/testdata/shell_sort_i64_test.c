#include "check.h"
#include <stdint.h>
void shell_sort_i64(int64_t *a, int n);
int main(void) {
	int64_t a[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
	shell_sort_i64(a, 10);
	for (int i = 0; i < 10; i++)
		CHECK(a[i] == i);
	int64_t b[5] = {INT64_MAX, INT64_MIN, 0, -1, 1};
	shell_sort_i64(b, 5);
	CHECK(b[0] == INT64_MIN && b[1] == -1 && b[2] == 0 && b[3] == 1 && b[4] == INT64_MAX);
	shell_sort_i64(b, 0);
	CHECK(b[0] == INT64_MIN);
	int64_t c[3] = {2, 2, 1};
	shell_sort_i64(c, 3);
	CHECK(c[0] == 1 && c[1] == 2 && c[2] == 2);
	int64_t d[2] = {5, 4};
	shell_sort_i64(d, 1);
	CHECK(d[0] == 5 && d[1] == 4);
	return 0;
}
