int collatz_steps(long n) {
	int steps = 0;
	if (n <= 0)
		return -1;
	while (n != 1) {
		if (n % 2 == 0)
			n /= 2;
		else
			n = 3 * n + 1;
		steps++;
	}
	return steps;
}
