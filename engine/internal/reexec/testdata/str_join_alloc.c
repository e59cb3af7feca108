#include <stdlib.h>
#include <string.h>

char *str_join_alloc(const char *const *parts, int n, const char *sep) {
	size_t total = 1, sl = strlen(sep);
	for (int i = 0; i < n; i++)
		total += strlen(parts[i]) + (i ? sl : 0);
	char *r = malloc(total);
	if (!r)
		return NULL;
	char *p = r;
	for (int i = 0; i < n; i++) {
		if (i) {
			memcpy(p, sep, sl);
			p += sl;
		}
		size_t k = strlen(parts[i]);
		memcpy(p, parts[i], k);
		p += k;
	}
	*p = '\0';
	return r;
}
