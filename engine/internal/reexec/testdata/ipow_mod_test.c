#include "check.h"
#include <stdint.h>
uint32_t ipow_mod(uint32_t base, uint32_t exp, uint32_t mod);
int main(void) {
	CHECK(ipow_mod(2, 10, 1000) == 24);
	CHECK(ipow_mod(3, 0, 7) == 1);
	CHECK(ipow_mod(5, 3, 1) == 0);
	CHECK(ipow_mod(7, 560, 561) == 1);
	CHECK(ipow_mod(4294967291u, 2, 4294967295u) == 16);
	CHECK(ipow_mod(10, 9, 1000000007u) == 1000000000u);
	return 0;
}
