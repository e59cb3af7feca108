#include <stdlib.h>
#include <string.h>

char *str_vowel_strip(const char *s, size_t *removed) {
	size_t n = strlen(s), k = 0;
	char *r = malloc(n + 1);
	if (!r)
		return NULL;
	*removed = 0;
	for (size_t i = 0; i < n; i++) {
		if (strchr("aeiouAEIOU", s[i]) != NULL)
			(*removed)++;
		else
			r[k++] = s[i];
	}
	r[k] = '\0';
	return r;
}
