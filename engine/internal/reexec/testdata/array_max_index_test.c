#include "check.h"
int array_max_index(const int *a, int n);
int main(void) {
	int a[6] = {3, 9, -1, 9, 2, 10};
	CHECK(array_max_index(a, 6) == 5);
	CHECK(array_max_index(a, 5) == 1);
	CHECK(array_max_index(a, 1) == 0);
	CHECK(array_max_index(a, 0) == -1);
	CHECK(array_max_index(a + 2, 3) == 1);
	int b[3] = {-5, -3, -4};
	CHECK(array_max_index(b, 3) == 1);
	return 0;
}
