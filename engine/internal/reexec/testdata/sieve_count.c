#include <stdlib.h>

int sieve_count(int limit, int *largest) {
	if (limit < 2)
		return 0;
	unsigned char *comp = calloc((size_t)limit + 1, 1);
	if (!comp)
		return -1;
	int count = 0;
	for (int i = 2; i <= limit; i++) {
		if (comp[i])
			continue;
		count++;
		*largest = i;
		for (long j = (long)i * i; j <= limit; j += i)
			comp[j] = 1;
	}
	free(comp);
	return count;
}
