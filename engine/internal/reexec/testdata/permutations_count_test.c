#include "check.h"
int permutations_count(int *a, int n, int k, int (*accept)(const int *, int));
static int all(const int *a, int n) { (void)a; (void)n; return 1; }
static int first_small(const int *a, int n) { (void)n; return a[0] == 1; }
static int sorted(const int *a, int n) {
	for (int i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}
int main(void) {
	int a[5] = {1, 2, 3, 4, 5};
	CHECK(permutations_count(a, 3, 0, all) == 6);
	CHECK(permutations_count(a, 5, 0, all) == 120);
	CHECK(permutations_count(a, 4, 0, first_small) == 6);
	CHECK(permutations_count(a, 5, 0, sorted) == 1);
	CHECK(a[0] == 1 && a[1] == 2 && a[2] == 3 && a[3] == 4 && a[4] == 5);
	CHECK(permutations_count(a, 0, 0, all) == 1);
	CHECK(permutations_count(a, 4, 2, all) == 2);
	return 0;
}
