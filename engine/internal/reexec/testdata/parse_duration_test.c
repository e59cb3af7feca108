#include "check.h"
long parse_duration(const char *s);
int main(void) {
	CHECK(parse_duration("1h30m") == 5400);
	CHECK(parse_duration("2d") == 172800);
	CHECK(parse_duration("45") == 45);
	CHECK(parse_duration("1m5") == 65);
	CHECK(parse_duration("") == 0);
	CHECK(parse_duration("h") == -1);
	CHECK(parse_duration("5x") == -1);
	CHECK(parse_duration("1d1h1m1s") == 90061);
	return 0;
}
