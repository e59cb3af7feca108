int luhn_valid(const char *digits) {
	int sum = 0, n = 0, dbl = 0;
	const char *p = digits;
	while (*p)
		p++;
	while (p > digits) {
		char c = *--p;
		if (c == ' ')
			continue;
		if (c < '0' || c > '9')
			return 0;
		int d = c - '0';
		if (dbl) {
			d *= 2;
			if (d > 9)
				d -= 9;
		}
		sum += d;
		dbl = !dbl;
		n++;
	}
	return n > 1 && sum % 10 == 0;
}
