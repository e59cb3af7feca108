long parse_duration(const char *s) {
	long total = 0, cur = 0;
	int have = 0;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			cur = cur * 10 + (*s - '0');
			have = 1;
			continue;
		}
		if (!have)
			return -1;
		switch (*s) {
		case 'd': total += cur * 86400; break;
		case 'h': total += cur * 3600; break;
		case 'm': total += cur * 60; break;
		case 's': total += cur; break;
		default: return -1;
		}
		cur = 0;
		have = 0;
	}
	if (have)
		total += cur;
	return total;
}
