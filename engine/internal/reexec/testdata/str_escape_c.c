#include <stdlib.h>
#include <string.h>

char *str_escape_c(const char *s) {
	size_t n = strlen(s);
	char *r = malloc(n * 4 + 1), *p = r;
	static const char hex[] = "0123456789abcdef";
	if (!r)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		case '\\': *p++ = '\\'; *p++ = '\\'; break;
		case '"': *p++ = '\\'; *p++ = '"'; break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				*p++ = '\\';
				*p++ = 'x';
				*p++ = hex[c >> 4];
				*p++ = hex[c & 15];
			} else {
				*p++ = (char)c;
			}
		}
	}
	*p = '\0';
	return r;
}
