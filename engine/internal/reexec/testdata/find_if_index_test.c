#include "check.h"
int find_if_index(const double *a, int n, int (*pred)(double));
static int negative(double x) { return x < 0; }
static int big(double x) { return x > 100; }
int main(void) {
	double a[5] = {1.5, 2.5, -0.5, 200, -3};
	CHECK(find_if_index(a, 5, negative) == 2);
	CHECK(find_if_index(a, 5, big) == 3);
	CHECK(find_if_index(a, 2, negative) == -1);
	CHECK(find_if_index(a, 0, big) == -1);
	CHECK(find_if_index(a + 3, 2, negative) == 1);
	return 0;
}
