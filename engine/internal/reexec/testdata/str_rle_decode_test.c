#include "check.h"
#include <string.h>
int str_rle_decode(const char *s, char *out, int cap);
int main(void) {
	char b[32];
	CHECK(str_rle_decode("3a1b2c", b, 32) == 6 && strcmp(b, "aaabcc") == 0);
	CHECK(str_rle_decode("", b, 32) == 0 && b[0] == 0);
	CHECK(str_rle_decode("12x", b, 32) == 12 && strcmp(b, "xxxxxxxxxxxx") == 0);
	CHECK(str_rle_decode("40x", b, 32) == -2);
	CHECK(str_rle_decode("a", b, 32) == -1);
	CHECK(str_rle_decode("3", b, 32) == -1);
	return 0;
}
