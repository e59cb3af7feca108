#include "check.h"
#include <stddef.h>
long mem_find_byte_pair(const unsigned char *p, size_t n, unsigned char a, unsigned char b);
int main(void) {
	const unsigned char d[8] = {1, 0xff, 2, 0xff, 0xd8, 3, 0xff, 0xd9};
	CHECK(mem_find_byte_pair(d, 8, 0xff, 0xd8) == 3);
	CHECK(mem_find_byte_pair(d, 8, 0xff, 0xd9) == 6);
	CHECK(mem_find_byte_pair(d, 7, 0xff, 0xd9) == -1);
	CHECK(mem_find_byte_pair(d, 8, 1, 0xff) == 0);
	CHECK(mem_find_byte_pair(d, 1, 1, 0xff) == -1);
	CHECK(mem_find_byte_pair(d, 8, 7, 7) == -1);
	return 0;
}
