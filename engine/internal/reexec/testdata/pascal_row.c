#include <stdint.h>
#include <stdlib.h>

uint64_t *pascal_row(int n) {
	if (n < 0 || n > 66)
		return NULL;
	uint64_t *row = malloc(sizeof(uint64_t) * (size_t)(n + 1));
	if (!row)
		return NULL;
	row[0] = 1;
	for (int i = 1; i <= n; i++) {
		row[i] = 1;
		for (int j = i - 1; j > 0; j--)
			row[j] += row[j - 1];
	}
	return row;
}
