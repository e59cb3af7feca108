#include "check.h"
#include <stdint.h>
uint32_t gcd_u32(uint32_t a, uint32_t b);
int main(void) {
	CHECK(gcd_u32(12, 18) == 6);
	CHECK(gcd_u32(18, 12) == 6);
	CHECK(gcd_u32(0, 7) == 7);
	CHECK(gcd_u32(7, 0) == 7);
	CHECK(gcd_u32(17, 5) == 1);
	CHECK(gcd_u32(4294967295u, 65535u) == 65535u);
	return 0;
}
