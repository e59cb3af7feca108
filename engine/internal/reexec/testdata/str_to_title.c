#include <ctype.h>

void str_to_title(char *s) {
	int start = 1;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalpha(c)) {
			*s = (char)(start ? toupper(c) : tolower(c));
			start = 0;
		} else {
			start = 1;
		}
	}
}
