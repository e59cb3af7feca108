#include <stddef.h>

size_t str_longest_run(const char *s, char *which) {
	size_t best = 0, cur = 0;
	char bc = 0;
	for (size_t i = 0; s[i]; i++) {
		cur = (i > 0 && s[i] == s[i - 1]) ? cur + 1 : 1;
		if (cur > best) {
			best = cur;
			bc = s[i];
		}
	}
	*which = bc;
	return best;
}
