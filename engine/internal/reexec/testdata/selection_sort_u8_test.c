#include "check.h"
#include <stddef.h>
void selection_sort_u8(unsigned char *a, size_t n);
int main(void) {
	unsigned char a[6] = {200, 3, 255, 0, 128, 3};
	selection_sort_u8(a, 6);
	CHECK(a[0] == 0 && a[1] == 3 && a[2] == 3 && a[3] == 128 && a[4] == 200 && a[5] == 255);
	unsigned char b[2] = {9, 8};
	selection_sort_u8(b, 0);
	CHECK(b[0] == 9);
	selection_sort_u8(b, 1);
	CHECK(b[0] == 9);
	selection_sort_u8(b, 2);
	CHECK(b[0] == 8 && b[1] == 9);
	unsigned char c[3] = {0x80, 0x7f, 0x81};
	selection_sort_u8(c, 3);
	CHECK(c[0] == 0x7f && c[1] == 0x80 && c[2] == 0x81);
	return 0;
}
