#include "check.h"
void array_min_max(const long *a, int n, long *mn, long *mx);
int main(void) {
	long a[6] = {4, -7, 12, 0, 12, -7}, lo = 99, hi = 99;
	array_min_max(a, 6, &lo, &hi);
	CHECK(lo == -7 && hi == 12);
	array_min_max(a, 1, &lo, &hi);
	CHECK(lo == 4 && hi == 4);
	lo = hi = 1;
	array_min_max(a, 0, &lo, &hi);
	CHECK(lo == 1 && hi == 1);
	array_min_max(a + 3, 2, &lo, &hi);
	CHECK(lo == 0 && hi == 12);
	long b[3] = {-9223372036854775807L - 1, 9223372036854775807L, 0};
	array_min_max(b, 3, &lo, &hi);
	CHECK(lo == -9223372036854775807L - 1 && hi == 9223372036854775807L);
	return 0;
}
