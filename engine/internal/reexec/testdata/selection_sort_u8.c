#include <stddef.h>

void selection_sort_u8(unsigned char *a, size_t n) {
	for (size_t i = 0; i + 1 < n; i++) {
		size_t m = i;
		for (size_t j = i + 1; j < n; j++)
			if (a[j] < a[m])
				m = j;
		unsigned char t = a[i];
		a[i] = a[m];
		a[m] = t;
	}
}
