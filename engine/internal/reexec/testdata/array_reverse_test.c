#include "check.h"
void array_reverse(int *a, int n);
int main(void) {
	int a[5] = {1, 2, 3, 4, 5};
	array_reverse(a, 5);
	CHECK(a[0] == 5 && a[1] == 4 && a[2] == 3 && a[3] == 2 && a[4] == 1);
	array_reverse(a, 4);
	CHECK(a[0] == 2 && a[3] == 5 && a[4] == 1);
	array_reverse(a, 1);
	CHECK(a[0] == 2);
	array_reverse(a, 0);
	CHECK(a[0] == 2);
	array_reverse(a, 2);
	CHECK(a[0] == 3 && a[1] == 2);
	return 0;
}
