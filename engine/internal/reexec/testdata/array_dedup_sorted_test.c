#include "check.h"
int array_dedup_sorted(int *a, int n);
int main(void) {
	int a[8] = {1, 1, 2, 3, 3, 3, 7, 7};
	CHECK(array_dedup_sorted(a, 8) == 4);
	CHECK(a[0] == 1 && a[1] == 2 && a[2] == 3 && a[3] == 7);
	int b[1] = {5};
	CHECK(array_dedup_sorted(b, 1) == 1 && b[0] == 5);
	CHECK(array_dedup_sorted(b, 0) == 0);
	int c[3] = {4, 4, 4};
	CHECK(array_dedup_sorted(c, 3) == 1 && c[0] == 4);
	int d[3] = {1, 2, 3};
	CHECK(array_dedup_sorted(d, 3) == 3 && d[2] == 3);
	return 0;
}
