#include "check.h"
int str_is_identifier(const char *s);
int main(void) {
	CHECK(str_is_identifier("foo"));
	CHECK(str_is_identifier("_x9"));
	CHECK(!str_is_identifier("9x"));
	CHECK(!str_is_identifier(""));
	CHECK(!str_is_identifier("a-b"));
	CHECK(str_is_identifier("Z"));
	CHECK(!str_is_identifier("a b"));
	return 0;
}
