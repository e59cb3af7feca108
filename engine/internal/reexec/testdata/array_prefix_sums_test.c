#include "check.h"
void array_prefix_sums(const int *in, long *out, int n);
int main(void) {
	int a[5] = {1, 2, 3, 4, -10};
	long o[5] = {0};
	array_prefix_sums(a, o, 5);
	CHECK(o[0] == 1 && o[1] == 3 && o[2] == 6 && o[3] == 10 && o[4] == 0);
	o[0] = 77;
	array_prefix_sums(a, o, 0);
	CHECK(o[0] == 77);
	array_prefix_sums(a + 4, o, 1);
	CHECK(o[0] == -10);
	int big[2] = {2147483647, 2147483647};
	array_prefix_sums(big, o, 2);
	CHECK(o[1] == 4294967294L);
	CHECK(o[0] == 2147483647L);
	return 0;
}
