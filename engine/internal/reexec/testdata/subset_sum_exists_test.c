#include "check.h"
int subset_sum_exists(const int *a, int n, int target);
int main(void) {
	int a[6] = {3, 34, 4, 12, 5, 2};
	CHECK(subset_sum_exists(a, 6, 9));
	CHECK(!subset_sum_exists(a, 6, 30));
	CHECK(subset_sum_exists(a, 6, 0));
	CHECK(!subset_sum_exists(a, 0, 3));
	CHECK(subset_sum_exists(a, 6, 60));
	CHECK(!subset_sum_exists(a, 1, 4));
	CHECK(subset_sum_exists(a, 2, 37));
	return 0;
}
