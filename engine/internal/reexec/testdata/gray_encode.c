#include <stdint.h>

uint32_t gray_encode(uint32_t v) {
	return v ^ (v >> 1);
}
