int str_split_count(const char *s, char sep, int *longest) {
	int fields = 1, cur = 0, best = 0;
	for (; *s; s++) {
		if (*s == sep) {
			fields++;
			if (cur > best)
				best = cur;
			cur = 0;
		} else {
			cur++;
		}
	}
	if (cur > best)
		best = cur;
	*longest = best;
	return fields;
}
