#include <string.h>

int strstr_count(const char *hay, const char *needle, int overlap) {
	size_t nl = strlen(needle);
	if (nl == 0)
		return -1;
	int n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += overlap ? 1 : nl;
	}
	return n;
}
