#include <string.h>

int memmove_overlap_shift(char *buf, int len, int at, int by) {
	if (at < 0 || at > len || by < 0)
		return -1;
	memmove(buf + at + by, buf + at, (size_t)(len - at));
	memset(buf + at, '_', (size_t)by);
	buf[len + by] = '\0';
	return len + by;
}
