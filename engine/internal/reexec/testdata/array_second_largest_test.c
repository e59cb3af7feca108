#include "check.h"
int array_second_largest(const int *a, int n, int *out);
int main(void) {
	int a[6] = {5, 1, 9, 9, 7, 3}, v = 0;
	CHECK(array_second_largest(a, 6, &v) == 1 && v == 7);
	CHECK(array_second_largest(a, 2, &v) == 1 && v == 1);
	CHECK(array_second_largest(a, 1, &v) == 0);
	int b[3] = {4, 4, 4};
	CHECK(array_second_largest(b, 3, &v) == 0);
	int c[3] = {-1, -5, -3};
	CHECK(array_second_largest(c, 3, &v) == 1 && v == -3);
	return 0;
}
