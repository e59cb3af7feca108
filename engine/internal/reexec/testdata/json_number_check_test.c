#include "check.h"
int json_number_check(const char *s);
int main(void) {
	CHECK(json_number_check("0"));
	CHECK(json_number_check("-12.5e+3"));
	CHECK(json_number_check("3.14159"));
	CHECK(json_number_check("1E9"));
	CHECK(!json_number_check("01"));
	CHECK(!json_number_check("1."));
	CHECK(!json_number_check("-"));
	CHECK(!json_number_check(""));
	CHECK(!json_number_check("1e"));
	CHECK(!json_number_check("+1"));
	CHECK(json_number_check("-0.0e-0"));
	return 0;
}
