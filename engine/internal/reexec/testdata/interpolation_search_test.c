#include "check.h"
int interpolation_search(const long *a, int n, long key);
int main(void) {
	long a[10] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 1000};
	CHECK(interpolation_search(a, 10, 10) == 0);
	CHECK(interpolation_search(a, 10, 70) == 6);
	CHECK(interpolation_search(a, 10, 1000) == 9);
	CHECK(interpolation_search(a, 10, 55) == -1);
	CHECK(interpolation_search(a, 10, 5000) == -1);
	CHECK(interpolation_search(a, 0, 10) == -1);
	long b[3] = {5, 5, 5};
	CHECK(interpolation_search(b, 3, 5) == 0);
	return 0;
}
