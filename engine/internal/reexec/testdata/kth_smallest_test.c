#include "check.h"
int kth_smallest(const int *a, int n, int k, int *out);
int main(void) {
	int a[7] = {7, 10, 4, 3, 20, 15, 4}, v = -1;
	CHECK(kth_smallest(a, 7, 0, &v) == 0 && v == 3);
	CHECK(kth_smallest(a, 7, 1, &v) == 0 && v == 4);
	CHECK(kth_smallest(a, 7, 2, &v) == 0 && v == 4);
	CHECK(kth_smallest(a, 7, 3, &v) == 0 && v == 7);
	CHECK(kth_smallest(a, 7, 6, &v) == 0 && v == 20);
	CHECK(kth_smallest(a, 7, 7, &v) == -1);
	CHECK(kth_smallest(a, 7, -1, &v) == -1);
	CHECK(a[0] == 7 && a[6] == 4);
	return 0;
}
