#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_trim_copy(const char *s);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	CHECK(eq(str_trim_copy("  hi  "), "hi"));
	CHECK(eq(str_trim_copy("\t\r\nx y\n"), "x y"));
	CHECK(eq(str_trim_copy(""), ""));
	CHECK(eq(str_trim_copy("    "), ""));
	CHECK(eq(str_trim_copy("abc"), "abc"));
	return 0;
}
