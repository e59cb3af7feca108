#include "check.h"
#include <stdint.h>
int cidr_contains(uint32_t net, int prefix, uint32_t addr);
int main(void) {
	CHECK(cidr_contains(0x0a000000u, 8, 0x0a010203u) == 1);
	CHECK(cidr_contains(0x0a000000u, 8, 0x0b010203u) == 0);
	CHECK(cidr_contains(0xc0a80100u, 24, 0xc0a801ffu) == 1);
	CHECK(cidr_contains(0xc0a80100u, 32, 0xc0a80101u) == 0);
	CHECK(cidr_contains(0, 0, 0xdeadbeefu) == 1);
	CHECK(cidr_contains(0, 33, 0) == -1);
	CHECK(cidr_contains(0x80000000u, 1, 0xffffffffu) == 1);
	return 0;
}
