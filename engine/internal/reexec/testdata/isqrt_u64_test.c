#include "check.h"
#include <stdint.h>
uint64_t isqrt_u64(uint64_t n);
int main(void) {
	CHECK(isqrt_u64(0) == 0);
	CHECK(isqrt_u64(1) == 1);
	CHECK(isqrt_u64(15) == 3);
	CHECK(isqrt_u64(16) == 4);
	CHECK(isqrt_u64(1000000) == 1000);
	CHECK(isqrt_u64(18446744073709551615ull) == 4294967295ull);
	return 0;
}
