#include <ctype.h>

int str_word_count(const char *s) {
	int n = 0, in = 0;
	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			in = 0;
		} else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}
