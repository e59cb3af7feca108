#include "check.h"
#include <stdint.h>
int str_hex_to_u64(const char *s, uint64_t *out);
int main(void) {
	uint64_t v = 0;
	CHECK(str_hex_to_u64("ff", &v) == 2 && v == 255);
	CHECK(str_hex_to_u64("0xDeadBeef", &v) == 8 && v == 0xdeadbeefull);
	CHECK(str_hex_to_u64("ffffffffffffffff", &v) == 16 && v == ~0ull);
	CHECK(str_hex_to_u64("10000000000000000", &v) == -2);
	CHECK(str_hex_to_u64("0x", &v) == -1);
	CHECK(str_hex_to_u64("12g", &v) == -1);
	CHECK(str_hex_to_u64("0", &v) == 1 && v == 0);
	return 0;
}
