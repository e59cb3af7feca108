#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_join_alloc(const char *const *parts, int n, const char *sep);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	const char *p[3] = {"a", "bc", "def"};
	CHECK(eq(str_join_alloc(p, 3, ", "), "a, bc, def"));
	CHECK(eq(str_join_alloc(p, 1, ", "), "a"));
	CHECK(eq(str_join_alloc(p, 0, ", "), ""));
	CHECK(eq(str_join_alloc(p, 3, ""), "abcdef"));
	const char *q[2] = {"", ""};
	CHECK(eq(str_join_alloc(q, 2, "-"), "-"));
	return 0;
}
