#include "check.h"
int array_equal_range(const int *a, int n, int key, int *first);
int main(void) {
	int a[9] = {1, 2, 2, 2, 5, 7, 7, 9, 11}, f = -1;
	CHECK(array_equal_range(a, 9, 2, &f) == 3 && f == 1);
	CHECK(array_equal_range(a, 9, 7, &f) == 2 && f == 5);
	CHECK(array_equal_range(a, 9, 3, &f) == 0 && f == 4);
	CHECK(array_equal_range(a, 9, 0, &f) == 0 && f == 0);
	CHECK(array_equal_range(a, 9, 12, &f) == 0 && f == 9);
	CHECK(array_equal_range(a, 9, 11, &f) == 1 && f == 8);
	CHECK(array_equal_range(a, 0, 1, &f) == 0 && f == 0);
	return 0;
}
