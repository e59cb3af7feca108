#include "check.h"
void sort_by_key_fn(int *a, int n, int (*key)(int));
static int absval(int x) { return x < 0 ? -x : x; }
static int neg(int x) { return -x; }
static int mod3(int x) { return x % 3; }
int main(void) {
	int a[5] = {-5, 3, -1, 4, 2};
	sort_by_key_fn(a, 5, absval);
	CHECK(a[0] == -1 && a[1] == 2 && a[2] == 3 && a[3] == 4 && a[4] == -5);
	sort_by_key_fn(a, 5, neg);
	CHECK(a[0] == 4 && a[1] == 3 && a[2] == 2 && a[3] == -1 && a[4] == -5);
	int b[6] = {5, 4, 3, 2, 1, 0};
	sort_by_key_fn(b, 6, mod3); /* stable */
	CHECK(b[0] == 3 && b[1] == 0 && b[2] == 4 && b[3] == 1 && b[4] == 5 && b[5] == 2);
	sort_by_key_fn(b, 0, neg);
	CHECK(b[0] == 3);
	sort_by_key_fn(b, 2, neg);
	CHECK(b[0] == 3 && b[1] == 0);
	return 0;
}
