#include "check.h"
void quicksort_rec(int *a, int lo, int hi);
int main(void) {
	int a[12] = {5, 3, 8, 1, 9, 2, 7, 4, 6, 0, 11, 10};
	quicksort_rec(a, 0, 11);
	for (int i = 0; i < 12; i++)
		CHECK(a[i] == i);
	int b[5] = {3, 3, 3, 1, 3};
	quicksort_rec(b, 0, 4);
	CHECK(b[0] == 1 && b[4] == 3);
	int c[4] = {4, 3, 2, 1};
	quicksort_rec(c, 1, 2);
	CHECK(c[0] == 4 && c[1] == 2 && c[2] == 3 && c[3] == 1);
	quicksort_rec(c, 0, 0);
	CHECK(c[0] == 4);
	int d[3] = {-1, -2147483647 - 1, 2147483647};
	quicksort_rec(d, 0, 2);
	CHECK(d[0] == -2147483647 - 1 && d[1] == -1 && d[2] == 2147483647);
	return 0;
}
