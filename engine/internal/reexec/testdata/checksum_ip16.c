#include <stddef.h>
#include <stdint.h>

uint16_t checksum_ip16(const uint8_t *p, size_t n) {
	uint32_t sum = 0;
	size_t i = 0;
	for (; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (i < n)
		sum += (uint32_t)p[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
