#include "check.h"
int isbn10_check(const char *s);
int main(void) {
	CHECK(isbn10_check("0-306-40615-2"));
	CHECK(!isbn10_check("0-306-40615-3"));
	CHECK(isbn10_check("080442957X"));
	CHECK(!isbn10_check("X804429570"));
	CHECK(!isbn10_check("030640615"));
	CHECK(!isbn10_check("03064061522"));
	CHECK(isbn10_check("3-598-21508-8"));
	return 0;
}
