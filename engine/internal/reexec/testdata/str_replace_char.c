int str_replace_char(char *s, char from, char to) {
	int n = 0;
	for (; *s; s++) {
		if (*s == from) {
			*s = to;
			n++;
		}
	}
	return n;
}
