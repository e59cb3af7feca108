#include "check.h"
#include <stdint.h>
int16_t sat_add_i16(int16_t a, int16_t b);
int main(void) {
	CHECK(sat_add_i16(1, 2) == 3);
	CHECK(sat_add_i16(30000, 30000) == 32767);
	CHECK(sat_add_i16(-30000, -30000) == -32768);
	CHECK(sat_add_i16(-5, 3) == -2);
	CHECK(sat_add_i16(32767, -1) == 32766);
	CHECK(sat_add_i16(-32768, 0) == -32768);
	return 0;
}
