#include "check.h"
void bubble_sort_i32(int *a, int n);
int main(void) {
	int a[7] = {5, -1, 3, 3, 0, 9, -7};
	bubble_sort_i32(a, 7);
	CHECK(a[0] == -7 && a[1] == -1 && a[2] == 0 && a[3] == 3 && a[4] == 3 && a[5] == 5 && a[6] == 9);
	int b[1] = {4};
	bubble_sort_i32(b, 1);
	CHECK(b[0] == 4);
	int c[2] = {2, 1};
	bubble_sort_i32(c, 2);
	CHECK(c[0] == 1 && c[1] == 2);
	bubble_sort_i32(c, 0);
	CHECK(c[0] == 1);
	int d[4] = {4, 3, 2, 1};
	bubble_sort_i32(d, 3);
	CHECK(d[0] == 2 && d[1] == 3 && d[2] == 4 && d[3] == 1);
	return 0;
}
