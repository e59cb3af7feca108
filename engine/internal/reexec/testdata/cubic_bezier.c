float cubic_bezier(float p0, float p1, float p2, float p3, float t) {
	float u = 1.0f - t;
	return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}
