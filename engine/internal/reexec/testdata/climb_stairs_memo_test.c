#include "check.h"
#include <stdint.h>
#include <string.h>
uint64_t climb_stairs_memo(int n, uint64_t *memo);
int main(void) {
	uint64_t m[80];
	memset(m, 0, sizeof m);
	CHECK(climb_stairs_memo(0, m) == 1);
	CHECK(climb_stairs_memo(1, m) == 1);
	CHECK(climb_stairs_memo(2, m) == 2);
	CHECK(climb_stairs_memo(3, m) == 4);
	CHECK(climb_stairs_memo(10, m) == 274);
	CHECK(climb_stairs_memo(60, m) == 4680045560037375ull);
	CHECK(climb_stairs_memo(-2, m) == 0);
	return 0;
}
