#include "check.h"
struct date {
	int year, month, day;
};
void date_add_days(struct date *d, int days);
int main(void) {
	struct date d = {2024, 1, 31};
	date_add_days(&d, 1);
	CHECK(d.year == 2024 && d.month == 2 && d.day == 1);
	date_add_days(&d, 28);
	CHECK(d.month == 2 && d.day == 29);
	date_add_days(&d, 1);
	CHECK(d.month == 3 && d.day == 1);
	struct date e = {2023, 12, 31};
	date_add_days(&e, 1);
	CHECK(e.year == 2024 && e.month == 1 && e.day == 1);
	date_add_days(&e, 366);
	CHECK(e.year == 2025 && e.month == 1 && e.day == 1);
	date_add_days(&e, 0);
	CHECK(e.year == 2025 && e.month == 1 && e.day == 1);
	return 0;
}
