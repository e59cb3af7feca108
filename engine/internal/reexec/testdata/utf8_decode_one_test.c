#include "check.h"
#include <stdint.h>
int utf8_decode_one(const unsigned char *s, int n, uint32_t *cp);
int main(void) {
	uint32_t c = 0;
	CHECK(utf8_decode_one((const unsigned char *)"A", 1, &c) == 1 && c == 'A');
	CHECK(utf8_decode_one((const unsigned char *)"\xc3\xa9", 2, &c) == 2 && c == 0xe9);
	CHECK(utf8_decode_one((const unsigned char *)"\xe2\x82\xac", 3, &c) == 3 && c == 0x20ac);
	CHECK(utf8_decode_one((const unsigned char *)"\xf0\x9f\x98\x80", 4, &c) == 4 && c == 0x1f600);
	CHECK(utf8_decode_one((const unsigned char *)"\xc0\x80", 2, &c) == -1);
	CHECK(utf8_decode_one((const unsigned char *)"\xed\xa0\x80", 3, &c) == -1);
	CHECK(utf8_decode_one((const unsigned char *)"\xe2\x82", 2, &c) == -1);
	CHECK(utf8_decode_one((const unsigned char *)"\x80", 1, &c) == -1);
	CHECK(utf8_decode_one((const unsigned char *)"", 0, &c) == 0);
	return 0;
}
