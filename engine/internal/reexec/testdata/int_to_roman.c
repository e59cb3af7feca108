#include <string.h>

int int_to_roman(int v, char *out) {
	static const int val[13] = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1};
	static const char *const sym[13] = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"};
	if (v <= 0 || v >= 4000)
		return -1;
	int k = 0;
	for (int i = 0; i < 13; i++) {
		while (v >= val[i]) {
			size_t n = strlen(sym[i]);
			memcpy(out + k, sym[i], n);
			k += (int)n;
			v -= val[i];
		}
	}
	out[k] = '\0';
	return k;
}
