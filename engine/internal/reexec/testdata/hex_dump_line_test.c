#include "check.h"
#include <string.h>
int hex_dump_line(const unsigned char *p, int n, char *out);
int main(void) {
	char b[128];
	const unsigned char d[20] = {'A', 'b', 0, 0xff, '~', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	CHECK(hex_dump_line(d, 2, b) == 10 && strcmp(b, "41 62 |Ab|") == 0);
	CHECK(hex_dump_line(d, 5, b) == 22 && strcmp(b, "41 62 00 ff 7e |Ab..~|") == 0);
	CHECK(hex_dump_line(d, 0, b) == 3 && strcmp(b, " ||") == 0);
	CHECK(hex_dump_line(d, 20, b) == 66);
	CHECK(strncmp(b, "41 62 00 ff 7e 01", 17) == 0 && b[65] == '|');
	return 0;
}
