#include "check.h"
#include <stdlib.h>
long *power_set_sums(const int *a, int n, int *count);
int main(void) {
	int a[3] = {1, 10, 100}, c = 0;
	long *r = power_set_sums(a, 3, &c);
	CHECK(r && c == 8);
	CHECK(r[0] == 0 && r[1] == 1 && r[2] == 10 && r[3] == 11 && r[4] == 100 && r[7] == 111);
	free(r);
	r = power_set_sums(a, 0, &c);
	CHECK(r && c == 1 && r[0] == 0);
	free(r);
	CHECK(power_set_sums(a, 21, &c) == NULL);
	CHECK(power_set_sums(a, -1, &c) == NULL);
	return 0;
}
