#include "check.h"
#include <string.h>
#include <stdint.h>
struct bitset {
	uint64_t words[4];
};
int bitset_ops(struct bitset *s, int op, int bit);
int main(void) {
	struct bitset s;
	memset(&s, 0, sizeof s);
	CHECK(bitset_ops(&s, 0, 3) == 1 && s.words[0] == 8);
	CHECK(bitset_ops(&s, 0, 255) == 1 && s.words[3] == 0x8000000000000000ull);
	CHECK(bitset_ops(&s, 3, 3) == 1 && bitset_ops(&s, 3, 4) == 0);
	CHECK(bitset_ops(&s, 4, 0) == 2);
	CHECK(bitset_ops(&s, 2, 64) == 1 && s.words[1] == 1);
	CHECK(bitset_ops(&s, 1, 3) == 0 && s.words[0] == 0);
	CHECK(bitset_ops(&s, 0, 256) == -1 && bitset_ops(&s, 9, 1) == -2);
	CHECK(bitset_ops(&s, 4, 0) == 2);
	return 0;
}
