#include "check.h"
#include <stdint.h>
int popcount_u64(uint64_t v);
int main(void) {
	CHECK(popcount_u64(0) == 0);
	CHECK(popcount_u64(1) == 1);
	CHECK(popcount_u64(0xff) == 8);
	CHECK(popcount_u64(0x8000000000000001ull) == 2);
	CHECK(popcount_u64(~0ull) == 64);
	CHECK(popcount_u64(0x5555555555555555ull) == 32);
	return 0;
}
