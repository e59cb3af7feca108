#include <stdlib.h>

int str_rle_decode(const char *s, char *out, int cap) {
	int k = 0;
	while (*s) {
		int count = 0;
		while (*s >= '0' && *s <= '9')
			count = count * 10 + (*s++ - '0');
		if (count == 0 || *s == '\0')
			return -1;
		if (k + count >= cap)
			return -2;
		for (int i = 0; i < count; i++)
			out[k++] = *s;
		s++;
	}
	out[k] = '\0';
	return k;
}
