float lerp_clamped(float a, float b, float t) {
	if (t < 0.0f)
		t = 0.0f;
	else if (t > 1.0f)
		t = 1.0f;
	return a + (b - a) * t;
}
