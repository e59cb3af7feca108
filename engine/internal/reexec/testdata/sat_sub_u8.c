#include <stdint.h>

uint8_t sat_sub_u8(uint8_t a, uint8_t b) {
	return a > b ? (uint8_t)(a - b) : 0;
}
