#include "check.h"
int day_of_year(int y, int m, int d);
int main(void) {
	CHECK(day_of_year(2023, 1, 1) == 1);
	CHECK(day_of_year(2023, 12, 31) == 365);
	CHECK(day_of_year(2024, 12, 31) == 366);
	CHECK(day_of_year(2024, 3, 1) == 61);
	CHECK(day_of_year(1900, 3, 1) == 60);
	CHECK(day_of_year(2024, 13, 1) == -1);
	CHECK(day_of_year(2024, 2, 0) == -1);
	return 0;
}
