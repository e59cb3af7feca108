int roman_to_int(const char *s) {
	int total = 0, prev = 0;
	for (int i = 0; s[i]; i++) {
		int v;
		switch (s[i]) {
		case 'I': v = 1; break;
		case 'V': v = 5; break;
		case 'X': v = 10; break;
		case 'L': v = 50; break;
		case 'C': v = 100; break;
		case 'D': v = 500; break;
		case 'M': v = 1000; break;
		default: return -1;
		}
		total += v;
		if (v > prev)
			total -= 2 * prev;
		prev = v;
	}
	return total;
}
