#include "check.h"
unsigned switch_fallthrough_bits(int level);
int main(void) {
	CHECK(switch_fallthrough_bits(0) == 0x01);
	CHECK(switch_fallthrough_bits(1) == 0x03);
	CHECK(switch_fallthrough_bits(3) == 0x0f);
	CHECK(switch_fallthrough_bits(5) == 0x3f);
	CHECK(switch_fallthrough_bits(6) == 0x80000000u);
	CHECK(switch_fallthrough_bits(-1) == 0x80000000u);
	return 0;
}
