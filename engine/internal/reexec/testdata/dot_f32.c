float dot_f32(const float *a, const float *b, unsigned n) {
	float s = 0.0f;
	for (unsigned i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}
