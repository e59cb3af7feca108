#include <stdio.h>
#include <string.h>

int hex_dump_line(const unsigned char *p, int n, char *out) {
	int k = 0;
	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++)
		k += sprintf(out + k, i ? " %02x" : "%02x", p[i]);
	out[k++] = ' ';
	out[k++] = '|';
	for (int i = 0; i < n; i++)
		out[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '.';
	out[k++] = '|';
	out[k] = '\0';
	return k;
}
