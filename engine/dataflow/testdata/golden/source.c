long sum_loop(long n) {
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * 3;
	return s;
}

int classify(int x) {
	if (x < -10)
		return 1;
	else if (x < 0)
		return 2;
	else if (x == 0)
		return 3;
	else if (x <= 100)
		return 4;
	return 5;
}

int scalars(int a, int b) {
	int x = a + b;
	int y = a - b;
	int z = x * y;
	if (z > 10)
		z -= x;
	return z;
}

extern int consume(int, int, int, int, int, int, int, int);
int caller(int a) {
	int k = a * 3;
	int r = consume(1, 2, 3, 4, 5, 6, 7, k);
	return r + k;
}
