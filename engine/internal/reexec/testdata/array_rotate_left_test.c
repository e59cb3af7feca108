#include "check.h"
void array_rotate_left(int *a, int n, int k);
int main(void) {
	int a[5] = {1, 2, 3, 4, 5};
	array_rotate_left(a, 5, 2);
	CHECK(a[0] == 3 && a[1] == 4 && a[2] == 5 && a[3] == 1 && a[4] == 2);
	array_rotate_left(a, 5, -2);
	CHECK(a[0] == 1 && a[4] == 5);
	array_rotate_left(a, 5, 5);
	CHECK(a[0] == 1 && a[4] == 5);
	array_rotate_left(a, 5, 7);
	CHECK(a[0] == 3 && a[4] == 2);
	array_rotate_left(a, 0, 3);
	CHECK(a[0] == 3);
	return 0;
}
