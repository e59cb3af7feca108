#include <stdint.h>

int ipv4_parse(const char *s, uint32_t *addr) {
	uint32_t v = 0;
	for (int part = 0; part < 4; part++) {
		if (*s < '0' || *s > '9')
			return -1;
		int octet = 0, digits = 0;
		while (*s >= '0' && *s <= '9') {
			if (digits == 1 && octet == 0)
				return -1; /* leading zero */
			octet = octet * 10 + (*s - '0');
			if (octet > 255)
				return -1;
			digits++;
			s++;
		}
		v = v << 8 | (uint32_t)octet;
		if (part < 3) {
			if (*s != '.')
				return -1;
			s++;
		}
	}
	if (*s != '\0')
		return -1;
	*addr = v;
	return 0;
}
