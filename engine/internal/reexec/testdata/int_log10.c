int int_log10(unsigned long long v) {
	int n = -1;
	while (v != 0) {
		v /= 10;
		n++;
	}
	return n;
}
