#include <string.h>

int path_normalize(const char *in, char *out) {
	int stack[64], depth = 0, k = 0;
	int abs = in[0] == '/';
	if (abs)
		out[k++] = '/';
	const char *p = in;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != '/')
			p++;
		size_t len = (size_t)(p - s);
		if (len == 1 && s[0] == '.')
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			if (depth > 0) {
				k = stack[--depth];
				continue;
			}
			if (abs)
				continue;
			return -1;
		}
		if (depth == 64)
			return -2;
		stack[depth++] = k;
		if (k > 0 && out[k - 1] != '/')
			out[k++] = '/';
		memcpy(out + k, s, len);
		k += (int)len;
	}
	if (k == 0)
		out[k++] = '.';
	out[k] = '\0';
	return k;
}
