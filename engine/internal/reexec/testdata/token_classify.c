int token_classify(int c) {
	switch (c) {
	case ' ': case '\t': case '\n': case '\r':
		return 0; /* space */
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return 1; /* digit */
	case '(': case ')': case '[': case ']': case '{': case '}':
		return 2; /* bracket */
	case '+': case '-': case '*': case '/': case '%': case '=':
		return 3; /* operator */
	case ',': case ';': case ':':
		return 4; /* punctuation */
	case '"': case '\'':
		return 5; /* quote */
	default:
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
			return 6;
		return 7;
	}
}
