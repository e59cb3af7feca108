/* REA's signature corpus (issue 25): C functions written for the tests of
 * prototype inference and call-site arguments. Every function is external
 * and kept out of line so that its prototype and its call sites survive
 * every optimisation level; the oracles are the DWARF of this file's -g
 * build and the literal arguments of the calls written below. Style the
 * oracle parser relies on: a function starts at column 0 with its return
 * type and NI, and ends with a "}" at column 0. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__clang__)
#define NI __attribute__((noinline, used))
#else
#define NI __attribute__((noinline, noclone, noipa, used))
#endif

struct point { int x, y; };
struct rect { struct point a, b; };
struct node { int value; struct node *next; };
struct vec3 { double x, y, z; };
struct account { long balance; int id; char name[16]; };
struct tree { int key; struct tree *left, *right; };

int g_counter;
int g_table[16];
char g_buf[64];
const char *g_names[4] = {"zero", "one", "two", "three"};
struct point g_origin;
volatile int g_sink;

/* ---- integer arithmetic ---- */
NI int add2(int a, int b) { return a + b; }
NI int sub3(int a, int b, int c) { return a - b - c; }
NI int mul_add(int a, int b, int c) { return a * b + c; }
NI int div_mod(int a, int b) { return a / b + a % b; }
NI unsigned udiv_mod(unsigned a, unsigned b) { return a / b + a % b; }
NI int shl_or(int a, int n) { return (a << n) | (a >> (32 - n)); }
NI int iabs(int a) { return a < 0 ? -a : a; }
NI int imin(int a, int b) { return a < b ? a : b; }
NI unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
NI int clamp(int v, int lo, int hi) { if (v < lo) return lo; if (v > hi) return hi; return v; }
NI int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
NI int bits_set(unsigned v) { int n = 0; while (v) { n += v & 1; v >>= 1; } return n; }
NI int sext_char(signed char c) { return c * 3; }
NI unsigned zext_uchar(unsigned char c) { return c + 7u; }
NI int sext_short(short s, short t) { return s * t; }
NI long mix_long(long a, int b, char c) { return a * b + c; }
NI unsigned long long ull_mul(unsigned long long a, unsigned long long b) { return a * b + 1; }
NI long long ll_add(long long a, long long b) { return a + b; }
NI int six_args(int a, int b, int c, int d, int e, int f) { return a + b * c - d * e + f; }
NI int eight_args(int a, int b, int c, int d, int e, int f, int g, int h) { return a + b + c + d + e + f + g * h; }
NI int is_even(int n) { return (n & 1) == 0; }
NI int sign3(long v) { return (v > 0) - (v < 0); }

/* ---- pointers and arrays ---- */
NI int sum_array(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
NI void fill_ints(int *a, int n, int v) { for (int i = 0; i < n; i++) a[i] = v; }
NI void copy_ints(int *dst, const int *src, int n) { for (int i = 0; i < n; i++) dst[i] = src[i]; }
NI int max_index(const int *a, int n) { int m = 0; for (int i = 1; i < n; i++) if (a[i] > a[m]) m = i; return m; }
NI void reverse_ints(int *a, int n) { for (int i = 0, j = n - 1; i < j; i++, j--) { int t = a[i]; a[i] = a[j]; a[j] = t; } }
NI long dot_long(const long *a, const long *b, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
NI int index_of(const int *a, int n, int v) { for (int i = 0; i < n; i++) if (a[i] == v) return i; return -1; }
NI void swap_ints(int *a, int *b) { int t = *a; *a = *b; *b = t; }
NI int trace3(int m[3][3]) { return m[0][0] + m[1][1] + m[2][2]; }
NI long ptr_span(const char *a, const char *b) { return b - a; }
NI int count_char(const char *s, char c) { int n = 0; for (; *s; s++) if (*s == c) n++; return n; }
NI void inc_all(unsigned char *p, unsigned n) { while (n--) (*p++)++; }
NI short *next_short(short *p) { return p + 1; }
NI int deref2(int **pp) { return **pp; }
NI void store_at(int *base, int idx, int v) { base[idx] = v; }
NI int load_global(int i) { return g_table[i & 15]; }
NI int *global_slot(int i) { return &g_table[i & 15]; }

/* ---- strings ---- */
NI unsigned my_strlen(const char *s) { unsigned n = 0; while (s[n]) n++; return n; }
NI int my_strcmp(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return (unsigned char)*a - (unsigned char)*b; }
NI void to_upper(char *s) { for (; *s; s++) if (*s >= 'a' && *s <= 'z') *s -= 32; }
NI int count_words(const char *s) { int n = 0, in = 0; for (; *s; s++) { if (*s == ' ') in = 0; else if (!in) { in = 1; n++; } } return n; }
NI int starts_with(const char *s, const char *p) { while (*p) if (*s++ != *p++) return 0; return 1; }
NI unsigned str_hash(const char *s) { unsigned h = 5381; while (*s) h = h * 33 + (unsigned char)*s++; return h; }
NI char *skip_spaces(char *s) { while (*s == ' ' || *s == '\t') s++; return s; }
NI int format_pair(char *buf, unsigned long size, int a, int b) { return snprintf(buf, size, "%d:%d", a, b); }
NI const char *name_of(int i) { return (i >= 0 && i < 4) ? g_names[i] : "many"; }
NI int last_char(const char *s) { unsigned n = strlen(s); return n ? s[n - 1] : -1; }
NI char *dup_upper(const char *s) { char *d = strdup(s); if (d) to_upper(d); return d; }
NI int has_prefix_lib(const char *s) { return strncmp(s, "prefix-", 7) == 0; }

/* ---- structs by pointer ---- */
NI int point_dist2(const struct point *a, const struct point *b) { int dx = a->x - b->x, dy = a->y - b->y; return dx * dx + dy * dy; }
NI int rect_area(const struct rect *r) { return (r->b.x - r->a.x) * (r->b.y - r->a.y); }
NI void point_move(struct point *p, int dx, int dy) { p->x += dx; p->y += dy; }
NI int list_length(const struct node *n) { int k = 0; for (; n; n = n->next) k++; return k; }
NI long list_sum(const struct node *n) { long s = 0; for (; n; n = n->next) s += n->value; return s; }
NI struct node *list_push(struct node *head, struct node *n, int v) { n->value = v; n->next = head; return n; }
NI double vec3_dot(const struct vec3 *a, const struct vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }
NI void vec3_scale(struct vec3 *v, double k) { v->x *= k; v->y *= k; v->z *= k; }
NI int deposit(struct account *acc, long amount) { if (amount <= 0) return -1; acc->balance += amount; return 0; }
NI void account_name(struct account *acc, const char *name) { strncpy(acc->name, name, sizeof acc->name - 1); acc->name[sizeof acc->name - 1] = 0; }
NI int tree_depth(const struct tree *t) { if (!t) return 0; int l = tree_depth(t->left), r = tree_depth(t->right); return 1 + (l > r ? l : r); }
NI const struct tree *tree_find(const struct tree *t, int key) { while (t && t->key != key) t = key < t->key ? t->left : t->right; return t; }

/* ---- floats and doubles ---- */
NI float fadd2(float a, float b) { return a + b; }
NI double dmul2(double a, double b) { return a * b; }
NI double poly3(double x, double a, double b, double c) { return (a * x + b) * x + c; }
NI double avg_doubles(const double *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += v[i]; return n ? s / n : 0; }
NI int ftrunc_int(float f) { return (int)f; }
NI double int_to_double(int i) { return i * 0.5; }
NI double mixed_args(int a, double b, long c, float d) { return a + b * c + d; }
NI double newton_sqrt(double x) { double r = x > 1 ? x / 2 : 1; for (int i = 0; i < 20; i++) r = (r + x / r) / 2; return r; }
NI float lerpf(float a, float b, float t) { return a + (b - a) * t; }
NI double dist2d(double x1, double y1, double x2, double y2) { double dx = x2 - x1, dy = y2 - y1; return dx * dx + dy * dy; }
NI int fless(float a, float b) { return a < b; }
NI float scale_float_array(float *v, int n, float k) { float s = 0; for (int i = 0; i < n; i++) { v[i] *= k; s += v[i]; } return s; }
NI double dmax(double a, double b) { return a > b ? a : b; }
NI float to_float(double d) { return (float)d; }
NI long round_to_long(double d) { return (long)(d + (d < 0 ? -0.5 : 0.5)); }

/* ---- varargs ---- */
NI int sum_va(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
NI void log_value(const char *tag, int v) { printf("%s=%d\n", tag, v); }
NI int print_two(int a, int b) { return printf("a=%d b=%d\n", a, b); }
NI int fmt_into(char *buf, int n) { return snprintf(buf, 32, "n=%d", n); }
NI void report_error(int code) { fprintf(stderr, "error %d\n", code); }
NI int call_sum_va(void) { return sum_va(3, 10, 20, 30); }
NI int print_double(double d) { return printf("%.2f\n", d); }
NI int print_mixed(int a, const char *s, double d) { return printf("%d %s %f\n", a, s, d); }

/* ---- callbacks through tables ---- */
typedef int (*binop)(int, int);
NI int op_add(int a, int b) { return a + b; }
NI int op_sub(int a, int b) { return a - b; }
NI int op_mul(int a, int b) { return a * b; }
NI int op_xor(int a, int b) { return a ^ b; }
binop g_ops[4] = {op_add, op_sub, op_mul, op_xor};
NI int apply_op(int which, int a, int b) { return g_ops[which & 3](a, b); }
NI int apply_fn(binop f, int a, int b) { return f(a, b); }
NI void map_ints(int *a, int n, int (*f)(int)) { for (int i = 0; i < n; i++) a[i] = f(a[i]); }
NI int cmp_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
NI void sort_ints(int *a, unsigned long n) { qsort(a, n, sizeof *a, cmp_ints); }
NI int fold_ops(const int *v, int n) { int acc = 0; for (int i = 0; i < n; i++) acc = g_ops[i & 3](acc, v[i]); return acc; }

/* ---- switches ---- */
NI int sw4(int k) { switch (k) { case 0: return 10; case 1: return 21; case 2: return 32; case 3: return 43; } return -1; }
NI int sw6(unsigned k) { switch (k) { case 1: return 7; case 2: return 11; case 3: return 13; case 4: return 17; case 5: return 19; case 6: return 23; default: return 0; } }
NI int sw8(int k, int x) { switch (k) { case 0: return x; case 1: return x + 1; case 2: return x * 2; case 3: return x - 3; case 4: return x << 4; case 5: return x >> 1; case 6: return -x; case 7: return ~x; default: return 0; } }
NI const char *sw_name(int k) { switch (k) { case 0: return "red"; case 1: return "green"; case 2: return "blue"; case 3: return "cyan"; case 4: return "magenta"; default: return "unknown"; } }
NI int sw_char(char c) { switch (c) { case 'a': case 'e': case 'i': case 'o': case 'u': return 1; case ' ': return 2; case '\n': return 3; case '0': case '1': case '2': return 4; default: return 0; } }
NI int sw12(int k) {
	switch (k) {
	case 0: return 3; case 1: return 14; case 2: return 15; case 3: return 92; case 4: return 65; case 5: return 35;
	case 6: return 89; case 7: return 79; case 8: return 32; case 9: return 38; case 10: return 46; case 11: return 26;
	}
	return 0;
}
NI int sw20(int k, int x) {
	switch (k) {
	case 0: x += 1; break; case 1: x -= 2; break; case 2: x *= 3; break; case 3: x ^= 4; break; case 4: x |= 5; break;
	case 5: x &= 6; break; case 6: x <<= 1; break; case 7: x >>= 1; break; case 8: x += 9; break; case 9: x -= 10; break;
	case 10: x *= 11; break; case 11: x ^= 12; break; case 12: x |= 13; break; case 13: x &= 14; break; case 14: x += 15; break;
	case 15: x -= 16; break; case 16: x *= 17; break; case 17: x ^= 18; break; case 18: x |= 19; break; case 19: x &= 20; break;
	}
	return x;
}
NI int sw40(int k) {
	switch (k) {
	case 0: return 5; case 1: return 8; case 2: return 13; case 3: return 21; case 4: return 34; case 5: return 55; case 6: return 89; case 7: return 144;
	case 8: return 233; case 9: return 377; case 10: return 610; case 11: return 987; case 12: return 1597; case 13: return 2584; case 14: return 4181;
	case 15: return 6765; case 16: return 10946; case 17: return 17711; case 18: return 28657; case 19: return 46368; case 20: return 75025;
	case 21: return 2; case 22: return 3; case 23: return 7; case 24: return 11; case 25: return 19; case 26: return 29; case 27: return 37;
	case 28: return 41; case 29: return 43; case 30: return 47; case 31: return 53; case 32: return 59; case 33: return 61; case 34: return 67;
	case 35: return 71; case 36: return 73; case 37: return 79; case 38: return 83; case 39: return 97;
	}
	return 0;
}
NI int sw_sparse(int k) { switch (k) { case 1: return 1; case 100: return 2; case 1000: return 3; case 10000: return 4; case -5: return 5; } return 0; }
NI void sw_call(int k) { switch (k) { case 0: log_value("zero", 0); break; case 1: log_value("one", 1); break; case 2: report_error(2); break; case 3: report_error(3); break; default: g_sink = k; } }

/* ---- recursion ---- */
NI long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
NI int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NI int ackermann(int m, int n) { if (m == 0) return n + 1; if (n == 0) return ackermann(m - 1, 1); return ackermann(m - 1, ackermann(m, n - 1)); }
NI int bsearch_rec(const int *a, int lo, int hi, int key) { if (lo > hi) return -1; int mid = lo + (hi - lo) / 2; if (a[mid] == key) return mid; return a[mid] < key ? bsearch_rec(a, mid + 1, hi, key) : bsearch_rec(a, lo, mid - 1, key); }
NI long hanoi(int n) { return n == 0 ? 0 : 2 * hanoi(n - 1) + 1; }
NI int digit_sum(unsigned n) { return n < 10 ? (int)n : (int)(n % 10) + digit_sum(n / 10); }
NI double power_rec(double b, int e) { if (e == 0) return 1; double h = power_rec(b, e / 2); return e % 2 ? h * h * b : h * h; }

/* ---- early returns ---- */
NI int validate(const char *s, int min, int max) { if (!s) return -1; unsigned n = my_strlen(s); if (n < (unsigned)min) return -2; if (n > (unsigned)max) return -3; return 0; }
NI int first_negative(const int *a, int n) { for (int i = 0; i < n; i++) if (a[i] < 0) return i; return -1; }
NI int safe_div(int a, int b, int *out) { if (b == 0) return 0; *out = a / b; return 1; }
NI int parse_digit(char c) { if (c < '0') return -1; if (c > '9') return -1; return c - '0'; }
NI int classify(int x) { if (x < 0) return -1; if (x == 0) return 0; if (x < 10) return 1; if (x < 100) return 2; return 3; }
NI const char *find_char(const char *s, int c) { for (; *s; s++) if (*s == c) return s; return 0; }
NI int check_range(long v, long lo, long hi) { if (v < lo || v > hi) return 0; return 1; }
NI int any_zero(const int *a, unsigned n) { while (n--) if (!*a++) return 1; return 0; }

/* ---- calls with literal arguments ---- */
NI int lit_ints(void) { return add2(3, 4) + sub3(100, -7, 0x10) + mul_add(6, 7, -1); }
NI int lit_big(void) { return (int)mix_long(0x12345678, 1000000, 'A') + six_args(1, 2, 3, 4, 5, 6); }
NI int lit_eight(void) { return eight_args(11, 12, 13, 14, 15, 16, 17, 18); }
NI int lit_strings(void) { return validate("hello world", 3, 40) + starts_with("abcdef", "abc") + count_char("mississippi", 's'); }
NI void lit_log(void) { log_value("alpha", 42); log_value("beta", -3); report_error(404); }
NI int lit_global(void) { fill_ints(g_table, 16, 9); return sum_array(g_table, 16) + index_of(g_table, 16, 9); }
NI int lit_addr(void) { swap_ints(&g_counter, &g_table[0]); return deref2(0) ; }
NI int lit_func(void) { return apply_fn(op_mul, 6, 9) + apply_fn(op_sub, 50, 8); }
NI char *lit_env(void) { return getenv("REA_CORPUS_HOME"); }
NI FILE *lit_fopen(void) { return fopen("/etc/rea-corpus.conf", "r"); }
NI int lit_open(void) { return open("/tmp/rea-corpus.lock", 0101, 0644); }
NI void lit_memset(void) { memset(g_buf, 0, 64); memcpy(g_buf, "copied", 7); }
NI int lit_snprintf(void) { return snprintf(g_buf, 64, "%s-%d", "tag", 77); }
NI int lit_write(void) { return (int)write(2, "rea corpus\n", 11); }
NI int lit_mixed(int x) { return clamp(x, -100, 100) + imin(x, 5) + gcd(x, 12); }
NI double lit_double(void) { return poly3(2.0, 1.5, -2.0, 0.25) + dmul2(3.0, 4.0); }
NI int lit_point(void) { point_move(&g_origin, 3, -4); return point_dist2(&g_origin, &g_origin); }
NI int lit_switch(void) { return sw4(2) + sw8(5, 1000) + sw12(11) + sw40(39) + sw_sparse(10000); }
NI int lit_rec(void) { return (int)fact(10) + fib(15) + ackermann(2, 3) + (int)hanoi(12); }
NI int lit_chars(void) { return sext_char(-5) + (int)zext_uchar(250) + sext_short(-300, 7) + parse_digit('7'); }
NI int lit_names(void) { return my_strcmp(name_of(2), "two") + (int)str_hash("corpus") + (int)my_strlen("twelve chars"); }
NI void lit_account(struct account *acc) { deposit(acc, 250); account_name(acc, "savings"); }
NI int lit_ops(void) { return apply_op(1, 20, 5) + apply_op(2, 3, 3) + op_xor(0xff, 0x0f); }
NI int lit_va(void) { return sum_va(4, 1, 2, 3, 4) + print_two(8, 9) + fmt_into(g_buf, 123); }
NI int lit_check(void) { return check_range(-20, -50, 50) + classify(77) + is_even(1234); }
NI int lit_unsigned(void) { return (int)udiv_mod(4000000000u, 7) + (int)umax(0xfffffff0u, 3) + bits_set(0xf0f0u); }

int main(int argc, char **argv) { (void)argv; g_sink = argc; return 0; }
