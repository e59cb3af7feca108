#include "check.h"
int days_in_month(int year, int month);
int main(void) {
	CHECK(days_in_month(2023, 1) == 31);
	CHECK(days_in_month(2023, 4) == 30);
	CHECK(days_in_month(2023, 2) == 28);
	CHECK(days_in_month(2024, 2) == 29);
	CHECK(days_in_month(1900, 2) == 28);
	CHECK(days_in_month(2000, 2) == 29);
	CHECK(days_in_month(2000, 0) == 0);
	CHECK(days_in_month(2000, 13) == 0);
	CHECK(days_in_month(2000, 11) == 30);
	return 0;
}
