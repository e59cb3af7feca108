#include <stdint.h>

int cidr_contains(uint32_t net, int prefix, uint32_t addr) {
	if (prefix < 0 || prefix > 32)
		return -1;
	if (prefix == 0)
		return 1;
	uint32_t mask = 0xffffffffu << (32 - prefix);
	return (net & mask) == (addr & mask);
}
