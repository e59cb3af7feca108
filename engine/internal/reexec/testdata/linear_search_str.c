#include <string.h>

int linear_search_str(const char *const *names, int n, const char *key) {
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], key) == 0)
			return i;
	return -1;
}
