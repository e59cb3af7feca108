#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_escape_c(const char *s);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	CHECK(eq(str_escape_c("plain"), "plain"));
	CHECK(eq(str_escape_c("a\nb"), "a\\nb"));
	CHECK(eq(str_escape_c("\t\"\\"), "\\t\\\"\\\\"));
	CHECK(eq(str_escape_c("\x01\xff"), "\\x01\\xff"));
	CHECK(eq(str_escape_c(""), ""));
	return 0;
}
