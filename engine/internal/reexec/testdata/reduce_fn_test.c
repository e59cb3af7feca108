#include "check.h"
long reduce_fn(const int *a, int n, long init, long (*op)(long, int));
static long sum(long a, int x) { return a + x; }
static long prod(long a, int x) { return a * x; }
static long maxop(long a, int x) { return x > a ? x : a; }
int main(void) {
	int a[5] = {3, 1, 4, 1, 5};
	CHECK(reduce_fn(a, 5, 0, sum) == 14);
	CHECK(reduce_fn(a, 5, 1, prod) == 60);
	CHECK(reduce_fn(a, 5, -100, maxop) == 5);
	CHECK(reduce_fn(a, 0, 7, sum) == 7);
	CHECK(reduce_fn(a + 2, 2, 10, sum) == 15);
	return 0;
}
