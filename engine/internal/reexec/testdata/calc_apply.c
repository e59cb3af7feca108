long calc_apply(char op, long a, long b, int *err) {
	*err = 0;
	switch (op) {
	case '+': return a + b;
	case '-': return a - b;
	case '*': return a * b;
	case '/':
		if (b == 0) {
			*err = 1;
			return 0;
		}
		return a / b;
	case '%':
		if (b == 0) {
			*err = 1;
			return 0;
		}
		return a % b;
	case '&': return a & b;
	case '|': return a | b;
	case '^': return a ^ b;
	case '<': return a < b;
	case '>': return a > b;
	case '=': return a == b;
	default:
		*err = 2;
		return 0;
	}
}
