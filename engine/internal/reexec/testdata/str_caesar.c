void str_caesar(char *s, int shift) {
	shift %= 26;
	if (shift < 0)
		shift += 26;
	for (; *s; s++) {
		if (*s >= 'a' && *s <= 'z')
			*s = (char)('a' + (*s - 'a' + shift) % 26);
		else if (*s >= 'A' && *s <= 'Z')
			*s = (char)('A' + (*s - 'A' + shift) % 26);
	}
}
