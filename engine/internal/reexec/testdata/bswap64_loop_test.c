#include "check.h"
#include <stdint.h>
uint64_t bswap64_loop(uint64_t v);
int main(void) {
	CHECK(bswap64_loop(0x0102030405060708ull) == 0x0807060504030201ull);
	CHECK(bswap64_loop(0) == 0);
	CHECK(bswap64_loop(0xff) == 0xff00000000000000ull);
	CHECK(bswap64_loop(~0ull) == ~0ull);
	CHECK(bswap64_loop(0x8000000000000000ull) == 0x80);
	return 0;
}
