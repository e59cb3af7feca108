void bubble_sort_i32(int *a, int n) {
	for (int i = 0; i < n - 1; i++) {
		int swapped = 0;
		for (int j = 0; j < n - 1 - i; j++) {
			if (a[j] > a[j + 1]) {
				int t = a[j];
				a[j] = a[j + 1];
				a[j + 1] = t;
				swapped = 1;
			}
		}
		if (!swapped)
			break;
	}
}
