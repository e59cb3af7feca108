#include <ctype.h>
#include <stdlib.h>

int stack_eval_rpn(const char *expr, long *result) {
	long st[64];
	int sp = 0;
	const char *p = expr;
	while (*p) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			char *end;
			long v = strtol(p, &end, 10);
			if (sp >= 64)
				return -1;
			st[sp++] = v;
			p = end;
			continue;
		}
		if (sp < 2)
			return -2;
		long b = st[--sp], a = st[--sp];
		switch (*p) {
		case '+': st[sp++] = a + b; break;
		case '-': st[sp++] = a - b; break;
		case '*': st[sp++] = a * b; break;
		case '/':
			if (b == 0)
				return -3;
			st[sp++] = a / b;
			break;
		default:
			return -4;
		}
		p++;
	}
	if (sp != 1)
		return -2;
	*result = st[0];
	return 0;
}
