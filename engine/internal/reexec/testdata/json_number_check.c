int json_number_check(const char *s) {
	int state = 0;
	for (;; s++) {
		char c = *s;
		int digit = c >= '0' && c <= '9';
		switch (state) {
		case 0: /* start */
			if (c == '-') state = 1;
			else if (c == '0') state = 2;
			else if (digit) state = 3;
			else return 0;
			break;
		case 1: /* after minus */
			if (c == '0') state = 2;
			else if (digit) state = 3;
			else return 0;
			break;
		case 2: /* leading zero */
		case 3: /* integer digits */
			if (state == 3 && digit) break;
			if (c == '.') state = 4;
			else if (c == 'e' || c == 'E') state = 6;
			else return c == '\0';
			break;
		case 4: /* after dot */
			if (digit) state = 5;
			else return 0;
			break;
		case 5: /* fraction */
			if (digit) break;
			if (c == 'e' || c == 'E') state = 6;
			else return c == '\0';
			break;
		case 6: /* after e */
			if (c == '+' || c == '-') state = 7;
			else if (digit) state = 8;
			else return 0;
			break;
		case 7:
			if (digit) state = 8;
			else return 0;
			break;
		case 8:
			if (digit) break;
			return c == '\0';
		}
	}
}
