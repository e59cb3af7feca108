#include <limits.h>

int array_second_largest(const int *a, int n, int *out) {
	int first = INT_MIN, second = INT_MIN, seen = 0;
	for (int i = 0; i < n; i++) {
		if (a[i] > first) {
			second = first;
			first = a[i];
			seen++;
		} else if (a[i] < first && a[i] > second) {
			second = a[i];
			seen++;
		}
	}
	if (seen < 2)
		return 0;
	*out = second;
	return 1;
}
