#include <ctype.h>

int str_natural_cmp(const char *a, const char *b) {
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = 0, y = 0;
			while (isdigit((unsigned char)*a))
				x = x * 10 + (unsigned long)(*a++ - '0');
			while (isdigit((unsigned char)*b))
				y = y * 10 + (unsigned long)(*b++ - '0');
			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a == *b)
		return 0;
	return *a ? 1 : -1;
}
