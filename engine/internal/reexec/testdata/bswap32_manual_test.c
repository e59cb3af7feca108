#include "check.h"
#include <stdint.h>
uint32_t bswap32_manual(uint32_t v);
int main(void) {
	CHECK(bswap32_manual(0x11223344u) == 0x44332211u);
	CHECK(bswap32_manual(0) == 0);
	CHECK(bswap32_manual(0xff) == 0xff000000u);
	CHECK(bswap32_manual(0xdeadbeefu) == 0xefbeaddeu);
	CHECK(bswap32_manual(0x01000000u) == 1);
	return 0;
}
