#include <stdint.h>

int str_hex_to_u64(const char *s, uint64_t *out) {
	uint64_t v = 0;
	int n = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, n++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (n >= 16)
			return -2;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*out = v;
	return n;
}
