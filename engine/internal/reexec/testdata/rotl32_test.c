#include "check.h"
#include <stdint.h>
uint32_t rotl32(uint32_t v, unsigned n);
int main(void) {
	CHECK(rotl32(1, 1) == 2);
	CHECK(rotl32(0x80000000u, 1) == 1);
	CHECK(rotl32(0x12345678u, 8) == 0x34567812u);
	CHECK(rotl32(0x12345678u, 0) == 0x12345678u);
	CHECK(rotl32(0x12345678u, 32) == 0x12345678u);
	CHECK(rotl32(0x12345678u, 36) == 0x23456781u);
	return 0;
}
