#include <ctype.h>

int str_compare_nocase(const char *a, const char *b) {
	for (;; a++, b++) {
		int x = tolower((unsigned char)*a), y = tolower((unsigned char)*b);
		if (x != y)
			return x < y ? -1 : 1;
		if (x == 0)
			return 0;
	}
}
