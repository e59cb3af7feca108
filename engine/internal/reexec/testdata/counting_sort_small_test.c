#include "check.h"
int counting_sort_small(unsigned char *a, int n, int maxv);
int main(void) {
	unsigned char a[8] = {3, 1, 2, 3, 0, 1, 3, 2};
	CHECK(counting_sort_small(a, 8, 3) == 8);
	CHECK(a[0] == 0 && a[1] == 1 && a[2] == 1 && a[3] == 2 && a[5] == 3 && a[7] == 3);
	unsigned char b[2] = {9, 1};
	CHECK(counting_sort_small(b, 2, 5) == -1);
	CHECK(counting_sort_small(b, 2, 300) == -1);
	CHECK(counting_sort_small(b, 2, 255) == 2 && b[0] == 1 && b[1] == 9);
	CHECK(counting_sort_small(b, 0, 10) == 0);
	return 0;
}
