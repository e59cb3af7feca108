#include <stdint.h>

uint32_t bswap32_manual(uint32_t v) {
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
