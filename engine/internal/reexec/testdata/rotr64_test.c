#include "check.h"
#include <stdint.h>
uint64_t rotr64(uint64_t v, unsigned n);
int main(void) {
	CHECK(rotr64(1, 1) == 0x8000000000000000ull);
	CHECK(rotr64(2, 1) == 1);
	CHECK(rotr64(0x0123456789abcdefull, 4) == 0xf0123456789abcdeull);
	CHECK(rotr64(0x0123456789abcdefull, 0) == 0x0123456789abcdefull);
	CHECK(rotr64(0x0123456789abcdefull, 64) == 0x0123456789abcdefull);
	CHECK(rotr64(0x0123456789abcdefull, 68) == 0xf0123456789abcdeull);
	return 0;
}
