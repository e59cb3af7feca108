#include "check.h"
long continue_filter_sum(const int *a, int n, int skip_mult);
int main(void) {
	int a[8] = {1, -2, 3, 4, 6, 2000, 7, 8};
	CHECK(continue_filter_sum(a, 8, 0) == 14);
	CHECK(continue_filter_sum(a, 8, 2) == 11);
	CHECK(continue_filter_sum(a, 8, 3) == 5);
	CHECK(continue_filter_sum(a, 0, 0) == 0);
	CHECK(continue_filter_sum(a + 6, 2, 0) == 15);
	CHECK(continue_filter_sum(a + 5, 3, 1000) == 15);
	return 0;
}
