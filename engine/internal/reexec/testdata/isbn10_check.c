int isbn10_check(const char *s) {
	int sum = 0, pos = 0;
	for (; *s; s++) {
		if (*s == '-')
			continue;
		int v;
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if ((*s == 'X' || *s == 'x') && pos == 9)
			v = 10;
		else
			return 0;
		if (pos >= 10)
			return 0;
		sum += v * (10 - pos);
		pos++;
	}
	return pos == 10 && sum % 11 == 0;
}
