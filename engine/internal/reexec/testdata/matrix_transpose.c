void matrix_transpose(const int *in, int *out, int rows, int cols) {
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			out[c * rows + r] = in[r * cols + c];
}
