#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *str_rle_encode(const char *s) {
	size_t n = strlen(s);
	char *r = malloc(n * 11 + 1);
	if (!r)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && s[j] == s[i])
			j++;
		k += (size_t)sprintf(r + k, "%zu%c", j - i, s[i]);
		i = j;
	}
	r[k] = '\0';
	return r;
}
