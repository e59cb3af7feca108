#include "check.h"
int merge_sort_alloc(int *a, int n);
int main(void) {
	int a[11] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
	CHECK(merge_sort_alloc(a, 11) == 0);
	for (int i = 0; i < 11; i++)
		CHECK(a[i] == i);
	int b[3] = {2, -2, 0};
	CHECK(merge_sort_alloc(b, 3) == 0 && b[0] == -2 && b[1] == 0 && b[2] == 2);
	CHECK(merge_sort_alloc(b, 0) == 0 && b[0] == -2);
	int c[5] = {1, 1, 0, 0, 1};
	CHECK(merge_sort_alloc(c, 5) == 0 && c[0] == 0 && c[1] == 0 && c[2] == 1 && c[4] == 1);
	return 0;
}
