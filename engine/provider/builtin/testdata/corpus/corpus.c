/* The procedure-discovery corpus (issue 13): one C program of more than 40
 * functions in the shapes compilers make hard to find without symbols:
 * static helpers, callbacks reached only through function pointers, a dense
 * switch (a jump table at -O2), recursion and mutual recursion, variadic
 * functions, a noreturn function, cold paths, and tail calls. It uses only
 * the C library, so it builds with every gcc and mingw toolchain; the tests
 * compile it and compare the stripped twin's procedures with the unstripped
 * twin's symbols (corpus_test.go). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI __attribute__((noinline))

int g_state = 7;
static int g_table[128];
static char g_buf[256];

/* static helpers */
NI static int sq(int x) { return x * x + g_state; }
NI static int cube(int x) { return x * sq(x); }
NI static int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
NI static unsigned rotl(unsigned x, int k) { return (x << (k & 31)) | (x >> ((32 - k) & 31)); }
NI static int is_prime(int n) {
	if (n < 2)
		return 0;
	for (int i = 2; i * i <= n; i++)
		if (n % i == 0)
			return 0;
	return 1;
}
NI static void fill_table(int seed) {
	for (int i = 0; i < 128; i++)
		g_table[i] = (seed * (i + 1)) ^ (i >> 3);
}

/* recursion */
NI int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NI int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
NI int ackermann(int m, int n) {
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}
NI static int is_odd(unsigned n);
NI static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
NI static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
NI int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
NI int lcm(int a, int b) { return a / gcd(a, b) * b; }

/* callbacks through function pointers */
typedef int (*binop)(int, int);
NI static int op_add(int a, int b) { return a + b; }
NI static int op_sub(int a, int b) { return a - b; }
NI static int op_mul(int a, int b) { return a * b; }
NI static int op_div(int a, int b) { return b ? a / b : 0; }
NI static int op_mod(int a, int b) { return b ? a % b : 0; }
NI static int op_xor(int a, int b) { return a ^ b; }
static binop g_ops[] = {op_add, op_sub, op_mul, op_div, op_mod, op_xor};
NI int apply(int i, int a, int b) { return g_ops[(unsigned)i % 6](a, b); }

typedef void (*visitor)(int *, void *);
NI static void visit_sum(int *v, void *acc) { *(long *)acc += *v; }
NI static void visit_max(int *v, void *acc) {
	if (*v > *(int *)acc)
		*(int *)acc = *v;
}
NI static void visit_neg(int *v, void *acc) {
	(void)acc;
	*v = -*v;
}
NI void walk(int *v, int n, visitor f, void *acc) {
	for (int i = 0; i < n; i++)
		f(&v[i], acc);
}
NI static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
NI static int cmp_int_desc(const void *a, const void *b) { return cmp_int(b, a); }

/* a dense switch: a jump table at -O2 */
NI int classify(int x) {
	switch (x & 15) {
	case 0: return sq(x);
	case 1: return cube(x);
	case 2: return fib(x & 15);
	case 3: return fact(x & 7);
	case 4: return x * 7 + 1;
	case 5: return x - 3;
	case 6: return clamp(x, -10, 10);
	case 7: return (int)rotl((unsigned)x, 5);
	case 8: return is_prime(x & 255);
	case 9: return gcd(x, 36);
	case 10: return lcm(x & 31, 6);
	case 11: return is_even((unsigned)x & 63);
	case 12: return apply(x, x, 3);
	default: return -x;
	}
}

/* variadics */
NI int sum_ints(int n, ...) {
	va_list ap;
	va_start(ap, n);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
NI int log_fmt(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(g_buf, sizeof g_buf, fmt, ap);
	va_end(ap);
	return n;
}
NI double avg_doubles(int n, ...) {
	va_list ap;
	va_start(ap, n);
	double s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return n ? s / n : 0;
}

/* noreturn, cold paths, tail calls */
NI __attribute__((noreturn)) void die(const char *msg) {
	fprintf(stderr, "fatal: %s\n", msg);
	exit(3);
}
NI void *xmalloc(size_t n) {
	void *p = malloc(n);
	if (__builtin_expect(p == NULL, 0))
		die("out of memory");
	return p;
}
NI int checked_div(int a, int b) {
	if (__builtin_expect(b == 0, 0)) {
		fprintf(stderr, "division by zero at %d\n", a);
		die("div");
	}
	return a / b;
}
NI static int tail_target(int x) { return x * 31 + g_state; }
NI int tail_caller(int x) { return tail_target(x + 1); }

/* strings */
NI size_t str_len(const char *s) {
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}
NI void str_rev(char *s) {
	size_t n = str_len(s);
	for (size_t i = 0; i < n / 2; i++) {
		char t = s[i];
		s[i] = s[n - 1 - i];
		s[n - 1 - i] = t;
	}
}
NI unsigned str_hash(const char *s) {
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}
NI char *str_dup(const char *s) {
	size_t n = strlen(s);
	char *p = xmalloc(n + 1);
	memcpy(p, s, n + 1);
	return p;
}
NI static int count_char(const char *s, char c) {
	int n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* numbers */
NI int popcount(unsigned x) {
	int c = 0;
	for (; x; x >>= 1)
		c += x & 1;
	return c;
}
NI long poly(long x) { return ((3 * x + 2) * x - 7) * x + 11; }
NI int count_primes(int n) {
	int c = 0;
	for (int i = 0; i < n; i++)
		c += is_prime(i);
	return c;
}
NI int table_sum(void) {
	int s = 0;
	for (int i = 0; i < 128; i++)
		s += g_table[i];
	return s;
}
NI int max_of(int n, const int *v) {
	int m = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}
NI void sort_table(int desc) { qsort(g_table, 128, sizeof g_table[0], desc ? cmp_int_desc : cmp_int); }

/* a tiny linked list */
struct node {
	int v;
	struct node *next;
};
NI static struct node *push(struct node *h, int v) {
	struct node *n = xmalloc(sizeof *n);
	n->next = h;
	n->v = v;
	return n;
}
NI static int list_len(const struct node *h) { return h ? 1 + list_len(h->next) : 0; }
NI static void list_free(struct node *h) {
	while (h) {
		struct node *n = h->next;
		free(h);
		h = n;
	}
}

int main(int argc, char **argv) {
	fill_table(argc);
	char *s = str_dup(argc > 1 ? argv[1] : "procedure discovery corpus");
	str_rev(s);
	int r = classify(argc) + classify(argc * 13) + apply(argc, 7, 5) + checked_div(100, argc);
	r += ackermann(2, argc & 3) + lcm(argc + 3, 4) + is_odd((unsigned)argc) + tail_caller(argc);
	r += count_primes(50 + argc) + popcount((unsigned)argc * 77u) + (int)poly(argc) + (int)str_hash(s);
	r += sum_ints(4, argc, 2, 3, 4) + (int)avg_doubles(2, 1.5, (double)argc) + count_char(s, 'o');
	long acc = 0;
	int mx = 0;
	walk(g_table, 128, visit_sum, &acc);
	walk(g_table, 128, visit_max, &mx);
	walk(g_table, argc, visit_neg, NULL);
	sort_table(argc & 1);
	r += max_of(128, g_table) + table_sum() + (int)acc + mx;
	struct node *h = NULL;
	for (int i = 0; i < argc + 3; i++)
		h = push(h, i);
	r += list_len(h);
	list_free(h);
	log_fmt("%s %d\n", s, r);
	puts(g_buf);
	free(s);
	return r & 1;
}
