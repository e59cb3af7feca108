#include <stdint.h>
#include <stdio.h>

int ipv4_format(uint32_t addr, int prefix, char *out, int cap) {
	int n;
	if (prefix < 0)
		n = snprintf(out, (size_t)cap, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 255, (addr >> 8) & 255, addr & 255);
	else if (prefix <= 32)
		n = snprintf(out, (size_t)cap, "%u.%u.%u.%u/%d", addr >> 24, (addr >> 16) & 255, (addr >> 8) & 255, addr & 255, prefix);
	else
		return -1;
	return n < cap ? n : -2;
}
