#include "check.h"
#include <stddef.h>
#include <stdint.h>
uint32_t crc32_bitwise(const unsigned char *p, size_t n);
int main(void) {
	CHECK(crc32_bitwise((const unsigned char *)"", 0) == 0);
	CHECK(crc32_bitwise((const unsigned char *)"a", 1) == 0xe8b7be43u);
	CHECK(crc32_bitwise((const unsigned char *)"123456789", 9) == 0xcbf43926u);
	CHECK(crc32_bitwise((const unsigned char *)"The quick brown fox jumps over the lazy dog", 43) == 0x414fa339u);
	unsigned char z[4] = {0, 0, 0, 0};
	CHECK(crc32_bitwise(z, 4) == 0x2144df1cu);
	return 0;
}
