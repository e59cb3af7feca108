#include "check.h"
int two_sum_sorted(const int *a, int n, int target, int *i_out, int *j_out);
int main(void) {
	int a[6] = {1, 3, 4, 6, 8, 11}, i = -1, j = -1;
	CHECK(two_sum_sorted(a, 6, 10, &i, &j) == 1 && i == 2 && j == 3);
	CHECK(two_sum_sorted(a, 6, 19, &i, &j) == 1 && i == 4 && j == 5);
	CHECK(two_sum_sorted(a, 6, 4, &i, &j) == 1 && i == 0 && j == 1);
	CHECK(two_sum_sorted(a, 6, 100, &i, &j) == 0);
	CHECK(two_sum_sorted(a, 1, 2, &i, &j) == 0);
	CHECK(two_sum_sorted(a, 6, 2, &i, &j) == 0);
	return 0;
}
