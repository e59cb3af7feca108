#include <stddef.h>

size_t str_common_prefix(const char *const *strs, int n) {
	if (n <= 0)
		return 0;
	size_t len = 0;
	for (;;) {
		char c = strs[0][len];
		if (c == '\0')
			return len;
		for (int i = 1; i < n; i++)
			if (strs[i][len] != c)
				return len;
		len++;
	}
}
