#include "check.h"
#include <stdint.h>
#include <string.h>
int ipv4_format(uint32_t addr, int prefix, char *out, int cap);
int main(void) {
	char b[32];
	CHECK(ipv4_format(0xc0a80101u, -1, b, 32) == 11 && strcmp(b, "192.168.1.1") == 0);
	CHECK(ipv4_format(0x0a000000u, 8, b, 32) == 10 && strcmp(b, "10.0.0.0/8") == 0);
	CHECK(ipv4_format(0, -1, b, 32) == 7 && strcmp(b, "0.0.0.0") == 0);
	CHECK(ipv4_format(0, 33, b, 32) == -1);
	CHECK(ipv4_format(0xffffffffu, 32, b, 8) == -2);
	return 0;
}
