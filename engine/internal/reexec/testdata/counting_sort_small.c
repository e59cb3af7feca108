#include <string.h>

int counting_sort_small(unsigned char *a, int n, int maxv) {
	int count[256];
	if (maxv < 0 || maxv > 255)
		return -1;
	memset(count, 0, sizeof count);
	for (int i = 0; i < n; i++) {
		if (a[i] > maxv)
			return -1;
		count[a[i]]++;
	}
	int k = 0;
	for (int v = 0; v <= maxv; v++)
		while (count[v]-- > 0)
			a[k++] = (unsigned char)v;
	return k;
}
