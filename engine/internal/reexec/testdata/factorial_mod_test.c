#include "check.h"
#include <stdint.h>
uint32_t factorial_mod(uint32_t n, uint32_t mod);
int main(void) {
	CHECK(factorial_mod(0, 100) == 1);
	CHECK(factorial_mod(5, 1000) == 120);
	CHECK(factorial_mod(10, 1000000007u) == 3628800);
	CHECK(factorial_mod(20, 1000000007u) == 146326063);
	CHECK(factorial_mod(7, 1) == 0);
	CHECK(factorial_mod(12, 13) == 12);
	return 0;
}
