/* Ground-truth fixture for compare_binaries, version 2: fixture_v1.c with
 * the edits listed in edits.json. Every function is
 * noipa (no inlining, cloning or interprocedural assumptions), so an edit to
 * one function's source changes that function's code only and the edit list
 * is also the list of machine-code changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN __attribute__((noipa))

struct point { int x, y; };
struct account { long balance; int id; int flags; };

int table[64];
char buffer[256];
struct point points[16];

FN unsigned early_probe(unsigned v) { unsigned r = v ^ 0x5bd1e995u; r ^= r >> 13; return r * 0x2545u; }
FN int add_int(int a, int b) { return a + b; }
FN int sub_int(int a, int b) { return a - b; }
FN int mul_int(int a, int b) { return a * b; }
FN int scale_value(int v) { return v * 23 + 3; }
FN int clamp_range(int v, int hi) { if (v < 0) return 0; if (v > hi) return hi; return v; }
FN long sum_squares(int n) { long s = 0; for (int i = 1; i <= n; i++) s += (long)i * i; return s; }
FN long sum_cubes(int n) { long s = 0; for (int i = 1; i <= n; i++) s += (long)i * i * i; return s; }
FN int gcd(int a, int b) { while (b != 0) { int t = a % b; a = b; b = t; } return a; }
FN int lcm(int a, int b) { return a / gcd(a, b) * b; }
FN int is_prime(int n) { if (n < 2) return 0; for (int d = 2; d * d <= n; d++) if (n % d == 0) return 0; return 1; }
FN int count_primes(int n) { int c = 0; for (int i = 0; i < n; i++) c += is_prime(i); return c; }
FN long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }
FN int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
FN int power_mod(int b, int e, int m) { long r = 1, x = b % m; while (e > 0) { if (e & 1) r = r * x % m; x = x * x % m; e >>= 1; } return (int)r; }
FN int abs_diff(int a, int b) { return a > b ? a - b : b - a; }

FN size_t str_length(const char *s) { size_t n = 0; while (s[n]) n++; return n; }
FN int count_char(const char *s, char c) { int n = 0; for (; *s; s++) if (*s == c) n++; return n; }
FN void reverse_str(char *s) { size_t n = strlen(s); for (size_t i = 0; i < n / 2; i++) { char t = s[i]; s[i] = s[n - 1 - i]; s[n - 1 - i] = t; } }
FN int parse_digit(char c) { if (c >= '0' && c <= '9') return c - '0'; return -1; }
FN int parse_number(const char *s) { int v = 0; for (; *s; s++) { int d = parse_digit(*s); if (d < 0) break; v = v * 10 + d; } return v; }
FN void upper_case(char *s) { for (; *s; s++) if (*s >= 'a' && *s <= 'z') *s -= 32; }
FN int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
FN unsigned checksum_buf(const unsigned char *b, size_t n) { unsigned h = 0; for (size_t i = 0; i < n; i++) h = (h * 31) ^ b[i]; return h; }
FN void log_error(const char *what) { fprintf(stderr, "error: %s did not succeed\n", what); }
FN void log_info(const char *what, int v) { printf("info: %s = %d\n", what, v); }

FN long hash_mix(long a, long b) { long h = a * 0x100000001b3L; h ^= b + (h << 6) + (h >> 2); return h; }

FN void fill_table(int seed) { for (int i = 0; i < 64; i++) table[i] = (seed * (i + 1)) % 97; }
FN int table_max(void) { int m = table[0]; for (int i = 1; i < 64; i++) if (table[i] > m) m = table[i]; return m; }
FN int table_min(void) { int m = table[0]; for (int i = 1; i < 64; i++) if (table[i] < m) m = table[i]; return m; }
FN long table_sum(void) { long s = 0; for (int i = 0; i < 64; i++) s += table[i]; return s; }
FN void sort_table(void) { for (int i = 1; i < 64; i++) { int v = table[i], j = i - 1; while (j >= 0 && table[j] > v) { table[j + 1] = table[j]; j--; } table[j + 1] = v; } }
FN int binary_search(int v) { int lo = 0, hi = 63; while (lo <= hi) { int mid = (lo + hi) / 2; if (table[mid] == v) return mid; if (table[mid] < v) lo = mid + 1; else hi = mid - 1; } return -1; }
FN void grid_fill(int *g, int rows, int cols) { for (int j = 0; j < cols; j++) for (int i = 0; i < rows; i++) g[i * cols + j] = i * 3 + j; }
FN long grid_sum(const int *g, int rows, int cols) { long s = 0; for (int i = 0; i < rows * cols; i++) s += g[i]; return s; }
FN void rotate_table(int k) { for (int r = 0; r < k; r++) { int first = table[0]; for (int i = 0; i < 63; i++) table[i] = table[i + 1]; table[63] = first; } }
FN int count_even(void) { int c = 0; for (int i = 0; i < 64; i++) if ((table[i] & 1) == 0) c++; return c; }

FN void point_set(struct point *p, int x, int y) { p->x = x; p->y = y; }
FN int point_dist2(const struct point *a, const struct point *b) { int dx = a->x - b->x, dy = a->y - b->y; return dx * dx + dy * dy; }
FN void points_init(void) { for (int i = 0; i < 16; i++) point_set(&points[i], i * 2, 15 - i); }
FN int points_farthest(void) { int best = 0; for (int i = 1; i < 16; i++) if (point_dist2(&points[0], &points[i]) > point_dist2(&points[0], &points[best])) best = i; return best; }
FN void account_deposit(struct account *a, long v) { if (v > 0) a->balance += v; }
FN int account_withdraw(struct account *a, long v) { if (v > a->balance) { a->flags |= 1; return 0; } a->balance -= v; return 1; }
FN long account_interest(const struct account *a) { return a->balance * 3 / 100; }
FN void account_print(const struct account *a) { printf("account %d: %ld (flags %x)\n", a->id, a->balance, a->flags); }

static FN int helper_double(int v) { return v * 2 + 1; }
FN int classify_char(char c) { switch (c) { case ' ': return 0; case '\t': return 1; case '\n': return 2; case ',': return 3; case ';': return 4; default: return c >= '0' && c <= '9' ? 5 : 6; } }
FN int state_step(int s, char c) { switch (s) { case 0: return c == 'a' ? 1 : 0; case 1: return c == 'b' ? 2 : (c == 'a' ? 1 : 0); case 2: return c == 'c' ? 3 : 0; default: return 3; } }
FN int run_machine(const char *s) { int st = 0; for (; *s; s++) st = state_step(st, *s); return st; }
FN int twice_sum(int a, int b) { return helper_double(a) + helper_double(b); }
FN int collatz_len(long n) { int c = 0; while (n != 1) { n = (n & 1) ? 3 * n + 1 : n / 2; c++; } return c; }
FN int digit_sum(int n) { int s = 0; while (n > 0) { s += n % 10; n /= 10; } return s; }
FN int bit_count(unsigned v) { int c = 0; while (v) { v &= v - 1; c++; } return c; }
FN unsigned bit_reverse(unsigned v) { unsigned r = 0; for (int i = 0; i < 32; i++) { r = (r << 1) | (v & 1); v >>= 1; } return r; }
FN int ackermann_small(int m, int n) { if (m == 0) return n + 1; if (n == 0) return ackermann_small(m - 1, 1); return ackermann_small(m - 1, ackermann_small(m, n - 1)); }

FN int mean_of(const int *v, int n) { long s = 0; for (int i = 0; i < n; i++) s += v[i]; return n ? (int)(s / n) : 0; }
FN void swap_ints(int *a, int *b) { int t = *a; *a = *b; *b = t; }
FN int max3(int a, int b, int c) { int m = a > b ? a : b; return m > c ? m : c; }
FN char hex_digit(int v) { return "0123456789abcdef"[v & 15]; }
FN long report_total(int n) { long t = sum_cubes(n); log_info("total", (int)t); return t; }
FN void *alloc_copy(const char *s) { size_t n = strlen(s) + 1; char *p = malloc(n); if (p) memcpy(p, s, n); return p; }
FN int process_text(const char *s) { char *p = alloc_copy(s); if (!p) { log_error("alloc"); return -1; } upper_case(p); int r = count_char(p, 'A') + run_machine(s); free(p); return r; }

FN int tail_extra(const int *v, int n) { int best = 0; for (int i = 0; i < n; i++) if (v[i] % 7 == 3) best += v[i]; return best; }

int main(int argc, char **argv) {
	const char *arg = argc > 1 ? argv[1] : "abc,123";
	int grid[12];
	struct account acc = {100, 7, 0};
	long total = 0;
	total += add_int(argc, 2) + sub_int(argc, 1) + mul_int(argc, 3) + scale_value(argc) + clamp_range(argc, 5);
	total += sum_cubes(argc) + lcm(argc + 3, 4) + count_primes(20) + factorial(5) + fib(10);
	total += power_mod(3, argc + 5, 1000) + abs_diff(argc, 9);
	total += (long)str_length(arg) + count_char(arg, ',') + parse_number(arg) + starts_with(arg, "ab");
	strncpy(buffer, arg, sizeof buffer - 1);
	reverse_str(buffer);
	total += checksum_buf((const unsigned char *)buffer, strlen(buffer));
	fill_table(argc + 11);
	sort_table();
	total += table_max() + table_min() + table_sum() + binary_search(table[5]) + count_even();
	rotate_table(3);
	grid_fill(grid, 3, 4);
	total += grid_sum(grid, 3, 4);
	points_init();
	total += points_farthest();
	account_deposit(&acc, 50);
	total += account_withdraw(&acc, 500) + account_interest(&acc);
	account_print(&acc);
	total += classify_char(arg[0]) + twice_sum(argc, 4) + collatz_len(27) + digit_sum(9875);
	total += bit_count(0xf0f0u) + bit_reverse(1u) + ackermann_small(1, 2);
	swap_ints(&grid[0], &grid[1]);
	total += mean_of(grid, 12) + max3(grid[0], grid[1], argc) + hex_digit(argc);
	total += report_total(argc + 4) + process_text(arg);
	if (total < 0)
		log_error("total");
	printf("%ld\n", total);
	return 0;
}
