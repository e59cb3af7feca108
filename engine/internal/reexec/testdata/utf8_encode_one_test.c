#include "check.h"
#include <stdint.h>
#include <string.h>
int utf8_encode_one(uint32_t cp, unsigned char *out);
int main(void) {
	unsigned char b[4];
	CHECK(utf8_encode_one('A', b) == 1 && b[0] == 'A');
	CHECK(utf8_encode_one(0xe9, b) == 2 && memcmp(b, "\xc3\xa9", 2) == 0);
	CHECK(utf8_encode_one(0x20ac, b) == 3 && memcmp(b, "\xe2\x82\xac", 3) == 0);
	CHECK(utf8_encode_one(0x1f600, b) == 4 && memcmp(b, "\xf0\x9f\x98\x80", 4) == 0);
	CHECK(utf8_encode_one(0xd800, b) == 0);
	CHECK(utf8_encode_one(0x110000, b) == 0);
	CHECK(utf8_encode_one(0x7ff, b) == 2 && b[0] == 0xdf && b[1] == 0xbf);
	return 0;
}
