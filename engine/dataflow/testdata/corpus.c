/* Functions for engine/dataflow's tests: no calls and no globals, so that
   the lifted procedure and its SSA form run under the IR interpreter from
   random registers alone. Loop bounds come from arguments the tests keep
   small. */

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

unsigned uclass(unsigned a, unsigned b) {
	if (a < b)
		return 1;
	if (a <= b + 7)
		return 2;
	if (a > 1000u)
		return 3;
	return 4;
}

int scalars(int a, int b) {
	int x = a + b;
	int y = a - b;
	int z = x * y;
	if (z > 10)
		z -= x;
	return z;
}

int locals_array(int a, int b) {
	int arr[4];
	int t = a * 2;
	arr[0] = a;
	arr[1] = b;
	arr[2] = t;
	arr[3] = a ^ b;
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += arr[i];
	return s + t;
}

void store_squares(int *p, int n) {
	for (int i = 0; i < n; i++)
		p[i] = i * i;
}

int max3(int a, int b, int c) {
	int m = a;
	if (b > m)
		m = b;
	if (c > m)
		m = c;
	return m;
}

int setcc_mix(long a, long b) {
	return (a < b) + (a == b) * 2 + ((unsigned long)a > (unsigned long)b) * 4 + (a >= b) * 8;
}

long gcd(long a, long b) {
	while (b != 0) {
		long t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int test_bits(unsigned x) {
	if (x & 4)
		return 1;
	if ((int)x < 0)
		return 2;
	if (x == 0)
		return 3;
	return 4;
}

long count_down(long n, long *out) {
	long steps = 0;
	while (n > 1) {
		if (n & 1)
			n = 3 * n + 1;
		else
			n = n / 2;
		steps++;
		if (steps > 50)
			break;
	}
	*out = n;
	return steps;
}

short narrow(short a, unsigned char b) {
	short r = a;
	if (b > 200)
		r = (short)(r - b);
	else
		r = (short)(r + b * 2);
	return r;
}
