int month_abbrev_index(const char *s) {
	if (!s[0] || !s[1] || !s[2] || s[3])
		return -1;
	switch (s[0]) {
	case 'J':
		if (s[1] == 'a' && s[2] == 'n') return 1;
		if (s[1] == 'u' && s[2] == 'n') return 6;
		if (s[1] == 'u' && s[2] == 'l') return 7;
		return -1;
	case 'F': return s[1] == 'e' && s[2] == 'b' ? 2 : -1;
	case 'M':
		if (s[1] != 'a') return -1;
		return s[2] == 'r' ? 3 : s[2] == 'y' ? 5 : -1;
	case 'A':
		if (s[1] == 'p' && s[2] == 'r') return 4;
		if (s[1] == 'u' && s[2] == 'g') return 8;
		return -1;
	case 'S': return s[1] == 'e' && s[2] == 'p' ? 9 : -1;
	case 'O': return s[1] == 'c' && s[2] == 't' ? 10 : -1;
	case 'N': return s[1] == 'o' && s[2] == 'v' ? 11 : -1;
	case 'D': return s[1] == 'e' && s[2] == 'c' ? 12 : -1;
	default: return -1;
	}
}
