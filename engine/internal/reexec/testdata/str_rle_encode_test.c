#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_rle_encode(const char *s);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	CHECK(eq(str_rle_encode("aaabcc"), "3a1b2c"));
	CHECK(eq(str_rle_encode(""), ""));
	CHECK(eq(str_rle_encode("x"), "1x"));
	CHECK(eq(str_rle_encode("aaaaaaaaaaaa"), "12a"));
	CHECK(eq(str_rle_encode("abab"), "1a1b1a1b"));
	return 0;
}
