int spiral_order(const int *m, int rows, int cols, int *out) {
	int top = 0, bottom = rows - 1, left = 0, right = cols - 1, k = 0;
	while (top <= bottom && left <= right) {
		for (int c = left; c <= right; c++)
			out[k++] = m[top * cols + c];
		top++;
		for (int r = top; r <= bottom; r++)
			out[k++] = m[r * cols + right];
		right--;
		if (top <= bottom) {
			for (int c = right; c >= left; c--)
				out[k++] = m[bottom * cols + c];
			bottom--;
		}
		if (left <= right) {
			for (int r = bottom; r >= top; r--)
				out[k++] = m[r * cols + left];
			left++;
		}
	}
	return k;
}
