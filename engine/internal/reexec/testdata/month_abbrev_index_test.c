#include "check.h"
int month_abbrev_index(const char *s);
int main(void) {
	CHECK(month_abbrev_index("Jan") == 1);
	CHECK(month_abbrev_index("Jun") == 6);
	CHECK(month_abbrev_index("Jul") == 7);
	CHECK(month_abbrev_index("Mar") == 3);
	CHECK(month_abbrev_index("May") == 5);
	CHECK(month_abbrev_index("Aug") == 8);
	CHECK(month_abbrev_index("Dec") == 12);
	CHECK(month_abbrev_index("Dex") == -1);
	CHECK(month_abbrev_index("Janu") == -1);
	CHECK(month_abbrev_index("") == -1);
	return 0;
}
