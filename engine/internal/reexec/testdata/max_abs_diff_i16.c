#include <stdint.h>

int max_abs_diff_i16(const int16_t *a, const int16_t *b, int n) {
	int m = 0;
	for (int i = 0; i < n; i++) {
		int d = a[i] - b[i];
		if (d < 0)
			d = -d;
		if (d > m)
			m = d;
	}
	return m;
}
