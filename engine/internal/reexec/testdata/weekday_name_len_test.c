#include "check.h"
#include <string.h>
int weekday_name_len(int day, char *out, int cap);
int main(void) {
	char b[16];
	CHECK(weekday_name_len(0, b, 16) == 6 && strcmp(b, "Sunday") == 0);
	CHECK(weekday_name_len(3, b, 16) == 9 && strcmp(b, "Wednesday") == 0);
	CHECK(weekday_name_len(6, b, 16) == 8 && strcmp(b, "Saturday") == 0);
	CHECK(weekday_name_len(7, b, 16) == -1);
	CHECK(weekday_name_len(3, b, 9) == -2);
	CHECK(weekday_name_len(5, b, 7) == 6 && strcmp(b, "Friday") == 0);
	return 0;
}
