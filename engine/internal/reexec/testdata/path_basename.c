#include <string.h>

const char *path_basename(const char *path, size_t *len) {
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t start = n;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (n == 1 && path[0] == '/')
		start = 0;
	*len = n - start;
	return path + start;
}
