#include <limits.h>

int str_atoi_checked(const char *s, int *out) {
	long long v = 0;
	int neg = 0, digits = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		digits++;
		if (v > (long long)INT_MAX + 1)
			return -2;
	}
	if (digits == 0 || *s != '\0')
		return -1;
	if (neg)
		v = -v;
	if (v > INT_MAX)
		return -2;
	*out = (int)v;
	return 0;
}
