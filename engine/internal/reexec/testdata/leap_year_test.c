#include "check.h"
int leap_year(int y);
int main(void) {
	CHECK(leap_year(2000));
	CHECK(!leap_year(1900));
	CHECK(leap_year(2024));
	CHECK(!leap_year(2023));
	CHECK(leap_year(1600));
	CHECK(!leap_year(2100));
	return 0;
}
