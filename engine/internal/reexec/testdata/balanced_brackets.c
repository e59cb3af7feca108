int balanced_brackets(const char *s) {
	char st[128];
	int sp = 0;
	for (; *s; s++) {
		char c = *s;
		if (c == '(' || c == '[' || c == '{') {
			if (sp == 128)
				return -1;
			st[sp++] = c;
		} else if (c == ')' || c == ']' || c == '}') {
			char want = c == ')' ? '(' : c == ']' ? '[' : '{';
			if (sp == 0 || st[sp - 1] != want)
				return 0;
			sp--;
		}
	}
	return sp == 0;
}
