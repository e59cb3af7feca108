#include "check.h"
#include <stdint.h>
uint8_t sat_sub_u8(uint8_t a, uint8_t b);
int main(void) {
	CHECK(sat_sub_u8(10, 3) == 7);
	CHECK(sat_sub_u8(3, 10) == 0);
	CHECK(sat_sub_u8(255, 0) == 255);
	CHECK(sat_sub_u8(255, 255) == 0);
	CHECK(sat_sub_u8(200, 1) == 199);
	return 0;
}
