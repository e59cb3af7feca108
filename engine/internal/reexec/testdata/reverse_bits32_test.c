#include "check.h"
#include <stdint.h>
uint32_t reverse_bits32(uint32_t v);
int main(void) {
	CHECK(reverse_bits32(0) == 0);
	CHECK(reverse_bits32(1) == 0x80000000u);
	CHECK(reverse_bits32(0x80000000u) == 1);
	CHECK(reverse_bits32(0xf0) == 0x0f000000u);
	CHECK(reverse_bits32(0xffffffffu) == 0xffffffffu);
	CHECK(reverse_bits32(0x12345678u) == 0x1e6a2c48u);
	return 0;
}
