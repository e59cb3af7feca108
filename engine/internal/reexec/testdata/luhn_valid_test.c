#include "check.h"
int luhn_valid(const char *digits);
int main(void) {
	CHECK(luhn_valid("4539 3195 0343 6467"));
	CHECK(!luhn_valid("8273 1232 7352 0569"));
	CHECK(luhn_valid("79927398713"));
	CHECK(!luhn_valid("0"));
	CHECK(luhn_valid("059"));
	CHECK(!luhn_valid("05a9"));
	CHECK(!luhn_valid(""));
	return 0;
}
