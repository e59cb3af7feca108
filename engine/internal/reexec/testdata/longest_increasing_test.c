#include "check.h"
int longest_increasing(const int *a, int n);
int main(void) {
	int a[8] = {10, 9, 2, 5, 3, 7, 101, 18};
	CHECK(longest_increasing(a, 8) == 4);
	CHECK(longest_increasing(a, 0) == 0);
	CHECK(longest_increasing(a, 2) == 1);
	int b[5] = {1, 2, 3, 4, 5};
	CHECK(longest_increasing(b, 5) == 5);
	int c[4] = {7, 7, 7, 7};
	CHECK(longest_increasing(c, 4) == 1);
	CHECK(longest_increasing(c, 300) == -1);
	return 0;
}
