#include "check.h"
#include <stdint.h>
int ipv4_parse(const char *s, uint32_t *addr);
int main(void) {
	uint32_t a = 0;
	CHECK(ipv4_parse("192.168.1.1", &a) == 0 && a == 0xc0a80101u);
	CHECK(ipv4_parse("0.0.0.0", &a) == 0 && a == 0);
	CHECK(ipv4_parse("255.255.255.255", &a) == 0 && a == 0xffffffffu);
	CHECK(ipv4_parse("256.1.1.1", &a) == -1);
	CHECK(ipv4_parse("1.2.3", &a) == -1);
	CHECK(ipv4_parse("1.2.3.4.5", &a) == -1);
	CHECK(ipv4_parse("01.2.3.4", &a) == -1);
	CHECK(ipv4_parse("1..3.4", &a) == -1);
	return 0;
}
