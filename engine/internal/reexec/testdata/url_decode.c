#include <stddef.h>

int url_decode(const char *in, char *out) {
	int k = 0;
	for (size_t i = 0; in[i]; i++) {
		char c = in[i];
		if (c == '+') {
			out[k++] = ' ';
		} else if (c == '%') {
			int v = 0;
			for (int j = 1; j <= 2; j++) {
				char h = in[i + j];
				v <<= 4;
				if (h >= '0' && h <= '9')
					v |= h - '0';
				else if (h >= 'a' && h <= 'f')
					v |= h - 'a' + 10;
				else if (h >= 'A' && h <= 'F')
					v |= h - 'A' + 10;
				else
					return -1;
			}
			out[k++] = (char)v;
			i += 2;
		} else {
			out[k++] = c;
		}
	}
	out[k] = '\0';
	return k;
}
