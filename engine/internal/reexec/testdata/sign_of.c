int sign_of(long long v) {
	return (v > 0) - (v < 0);
}
