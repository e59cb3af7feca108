#include <stdint.h>

struct bitset {
	uint64_t words[4];
};

int bitset_ops(struct bitset *s, int op, int bit) {
	if (bit < 0 || bit >= 256)
		return -1;
	uint64_t m = 1ull << (bit & 63);
	uint64_t *w = &s->words[bit >> 6];
	switch (op) {
	case 0: *w |= m; return 1;
	case 1: *w &= ~m; return 0;
	case 2: *w ^= m; return (*w & m) != 0;
	case 3: return (*w & m) != 0;
	case 4: {
		int n = 0;
		for (int i = 0; i < 4; i++)
			for (uint64_t x = s->words[i]; x; x &= x - 1)
				n++;
		return n;
	}
	default: return -2;
	}
}
