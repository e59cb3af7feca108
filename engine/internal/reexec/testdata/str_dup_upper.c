#include <stdlib.h>
#include <string.h>

char *str_dup_upper(const char *s) {
	size_t n = strlen(s);
	char *r = malloc(n + 1);
	if (r == NULL)
		return NULL;
	for (size_t i = 0; i <= n; i++) {
		char c = s[i];
		r[i] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
	}
	return r;
}
