#include <stdint.h>

int utf8_decode_one(const unsigned char *s, int n, uint32_t *cp) {
	if (n <= 0)
		return 0;
	unsigned char c = s[0];
	int len;
	uint32_t v;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		len = 2;
		v = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		v = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		v = c & 0x07;
	} else {
		return -1;
	}
	if (n < len)
		return -1;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		return -1;
	if (v >= 0xd800 && v <= 0xdfff)
		return -1;
	*cp = v;
	return len;
}
