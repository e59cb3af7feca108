#include <stdint.h>

uint64_t rotr64(uint64_t v, unsigned n) {
	n &= 63;
	return (v >> n) | (v << ((64 - n) & 63));
}
