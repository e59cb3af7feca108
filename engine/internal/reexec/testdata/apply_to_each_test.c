#include "check.h"
void apply_to_each(int *a, int n, int (*f)(int, void *), void *ctx);
static int add(int x, void *c) { return x + *(int *)c; }
static int count(int x, void *c) { (*(int *)c)++; return x * 2; }
int main(void) {
	int a[4] = {1, 2, 3, 4}, k = 10;
	apply_to_each(a, 4, add, &k);
	CHECK(a[0] == 11 && a[3] == 14);
	int calls = 0;
	apply_to_each(a, 3, count, &calls);
	CHECK(calls == 3 && a[0] == 22 && a[2] == 26 && a[3] == 14);
	apply_to_each(a, 0, count, &calls);
	CHECK(calls == 3);
	k = -14;
	apply_to_each(a + 3, 1, add, &k);
	CHECK(a[3] == 0);
	CHECK(a[1] == 24);
	return 0;
}
