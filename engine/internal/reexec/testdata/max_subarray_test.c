#include "check.h"
long max_subarray(const int *a, int n, int *start, int *len);
int main(void) {
	int a[9] = {-2, 1, -3, 4, -1, 2, 1, -5, 4}, s = -1, l = -1;
	CHECK(max_subarray(a, 9, &s, &l) == 6 && s == 3 && l == 4);
	int b[3] = {-3, -1, -2};
	CHECK(max_subarray(b, 3, &s, &l) == -1 && s == 1 && l == 1);
	int c[1] = {5};
	CHECK(max_subarray(c, 1, &s, &l) == 5 && s == 0 && l == 1);
	int d[4] = {1, 2, 3, 4};
	CHECK(max_subarray(d, 4, &s, &l) == 10 && s == 0 && l == 4);
	int e[2] = {2147483647, 2147483647};
	CHECK(max_subarray(e, 2, &s, &l) == 4294967294L && l == 2);
	return 0;
}
