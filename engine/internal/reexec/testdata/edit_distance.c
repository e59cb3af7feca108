#include <stdlib.h>
#include <string.h>

int edit_distance(const char *a, const char *b) {
	size_t n = strlen(a), m = strlen(b);
	int *row = malloc(sizeof(int) * (m + 1));
	if (!row)
		return -1;
	for (size_t j = 0; j <= m; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= m; j++) {
			int cur = row[j];
			int best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	int d = row[m];
	free(row);
	return d;
}
