#include "check.h"
int irreducible_scan(const int *a, int n, int start_inside);
int main(void) {
	int a[5] = {10, 20, 30, 40, 50};
	CHECK(irreducible_scan(a, 3, 0) == 63);
	CHECK(irreducible_scan(a, 3, 1) == 49);
	CHECK(irreducible_scan(a, 5, 0) == -103);
	CHECK(irreducible_scan(a, 5, 1) == -140);
	CHECK(irreducible_scan(a, 0, 0) == 0);
	CHECK(irreducible_scan(a, 0, 1) == 0);
	CHECK(irreducible_scan(a + 4, 1, 0) == 50);
	return 0;
}
