int do_while_digits(unsigned v, unsigned base, char *out) {
	static const char d[] = "0123456789abcdef";
	char tmp[33];
	int n = 0;
	if (base < 2 || base > 16)
		return -1;
	do {
		tmp[n++] = d[v % base];
		v /= base;
	} while (v != 0);
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}
