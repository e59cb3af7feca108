int fib_rec(int n) {
	if (n < 2)
		return n < 0 ? 0 : n;
	return fib_rec(n - 1) + fib_rec(n - 2);
}
