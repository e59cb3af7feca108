#include "check.h"
#include <string.h>
int memmove_overlap_shift(char *buf, int len, int at, int by);
int main(void) {
	char b[32] = "abcdef";
	CHECK(memmove_overlap_shift(b, 6, 2, 3) == 9 && strcmp(b, "ab___cdef") == 0);
	CHECK(memmove_overlap_shift(b, 9, 0, 1) == 10 && strcmp(b, "_ab___cdef") == 0);
	CHECK(memmove_overlap_shift(b, 10, 10, 2) == 12 && strcmp(b, "_ab___cdef__") == 0);
	CHECK(memmove_overlap_shift(b, 12, 5, 0) == 12 && strcmp(b, "_ab___cdef__") == 0);
	CHECK(memmove_overlap_shift(b, 12, 13, 1) == -1);
	CHECK(memmove_overlap_shift(b, 12, -1, 1) == -1);
	return 0;
}
