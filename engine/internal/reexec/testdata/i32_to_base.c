#include <stdlib.h>

char *i32_to_base(int v, int base) {
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	if (base < 2 || base > 36)
		return NULL;
	char tmp[34];
	int n = 0;
	long long x = v;
	int neg = x < 0;
	if (neg)
		x = -x;
	do {
		tmp[n++] = digits[x % base];
		x /= base;
	} while (x);
	char *r = malloc((size_t)n + 2);
	if (!r)
		return NULL;
	int k = 0;
	if (neg)
		r[k++] = '-';
	while (n > 0)
		r[k++] = tmp[--n];
	r[k] = '\0';
	return r;
}
