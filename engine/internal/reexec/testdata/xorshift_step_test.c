#include "check.h"
#include <stdint.h>
uint64_t xorshift_step(uint64_t *state);
int main(void) {
	uint64_t s = 1;
	uint64_t a = xorshift_step(&s);
	CHECK(a == s);
	CHECK(a == 0x0000000040822041ull);
	uint64_t b = xorshift_step(&s);
	CHECK(b == s && b != a);
	uint64_t z = 0;
	CHECK(xorshift_step(&z) == 0 && z == 0);
	s = 88172645463325252ull;
	CHECK(xorshift_step(&s) == 8748534153485358512ull);
	return 0;
}
