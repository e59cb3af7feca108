#include "check.h"
#include <stdint.h>
#include <string.h>
int u64_to_dec(uint64_t v, char *buf);
int main(void) {
	char b[32];
	CHECK(u64_to_dec(0, b) == 1 && strcmp(b, "0") == 0);
	CHECK(u64_to_dec(7, b) == 1 && strcmp(b, "7") == 0);
	CHECK(u64_to_dec(1234567890, b) == 10 && strcmp(b, "1234567890") == 0);
	CHECK(u64_to_dec(18446744073709551615ull, b) == 20 && strcmp(b, "18446744073709551615") == 0);
	CHECK(u64_to_dec(100, b) == 3 && strcmp(b, "100") == 0);
	return 0;
}
