#include "check.h"
int weekday_zeller(int y, int m, int d);
int main(void) {
	/* 0 = Sunday */
	CHECK(weekday_zeller(2000, 1, 1) == 6);
	CHECK(weekday_zeller(2024, 2, 29) == 4);
	CHECK(weekday_zeller(1970, 1, 1) == 4);
	CHECK(weekday_zeller(2023, 12, 25) == 1);
	CHECK(weekday_zeller(2026, 12, 7) == 1);
	CHECK(weekday_zeller(1900, 3, 1) == 4);
	return 0;
}
