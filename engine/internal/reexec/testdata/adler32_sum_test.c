#include "check.h"
#include <stddef.h>
#include <stdint.h>
uint32_t adler32_sum(const unsigned char *p, size_t n);
int main(void) {
	CHECK(adler32_sum((const unsigned char *)"", 0) == 1);
	CHECK(adler32_sum((const unsigned char *)"a", 1) == 0x00620062u);
	CHECK(adler32_sum((const unsigned char *)"abc", 3) == 0x024d0127u);
	CHECK(adler32_sum((const unsigned char *)"Wikipedia", 9) == 0x11e60398u);
	unsigned char ff[3] = {255, 255, 255};
	CHECK(adler32_sum(ff, 3) == 0x05fd02feu);
	return 0;
}
