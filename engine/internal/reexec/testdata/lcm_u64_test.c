#include "check.h"
#include <stdint.h>
uint64_t lcm_u64(uint64_t a, uint64_t b);
int main(void) {
	CHECK(lcm_u64(4, 6) == 12);
	CHECK(lcm_u64(0, 6) == 0);
	CHECK(lcm_u64(6, 0) == 0);
	CHECK(lcm_u64(7, 13) == 91);
	CHECK(lcm_u64(1ull << 40, 3) == 3ull << 40);
	CHECK(lcm_u64(21, 6) == 42);
	return 0;
}
