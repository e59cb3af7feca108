#include "check.h"
#include <stdint.h>
int is_prime_u32(uint32_t n);
int main(void) {
	CHECK(!is_prime_u32(0));
	CHECK(!is_prime_u32(1));
	CHECK(is_prime_u32(2));
	CHECK(is_prime_u32(3));
	CHECK(!is_prime_u32(25));
	CHECK(is_prime_u32(97));
	CHECK(!is_prime_u32(4294967295u));
	CHECK(is_prime_u32(4294967291u));
	return 0;
}
