/* Small functions for the differential test's corpus: the test compiles this
 * with gcc -O2 and takes straight-line windows of its instructions. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

int64_t mix64(int64_t a, int64_t b) { return (a * 31 + b) ^ (a >> 7) ^ (b << 3); }
uint32_t rotl32(uint32_t x, int n) { return (x << (n & 31)) | (x >> ((32 - n) & 31)); }
uint64_t rotr64(uint64_t x, int n) { return (x >> (n & 63)) | (x << ((64 - n) & 63)); }
int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
int sign(long x) { return (x > 0) - (x < 0); }
unsigned udivmod(unsigned a, unsigned b, unsigned *r) { *r = a % b; return a / b; }
long sdiv7(long a) { return a / 7; }
int sdiv10(int a) { return a / 10 + a % 10; }
#ifdef __SIZEOF_INT128__
uint64_t umulh(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
#endif
#ifdef __SIZEOF_INT128__
int64_t smulh(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }
#endif
int popc(unsigned x) { return __builtin_popcount(x); }
int ctz64(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }
int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
uint32_t bswap32(uint32_t x) { return __builtin_bswap32(x); }
uint64_t bswap64(uint64_t x) { return __builtin_bswap64(x); }
int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
int16_t sat16(int x) { return x > 32767 ? 32767 : x < -32768 ? -32768 : x; }
uint8_t avg8(uint8_t a, uint8_t b) { return (uint8_t)(((unsigned)a + b + 1) >> 1); }
int8_t narrow(int64_t x) { return (int8_t)(x * 3 - 1); }
unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
long abs_diff(long a, long b) { return a > b ? a - b : b - a; }
int cmp3(long a, long b) { return a < b ? -1 : a > b; }
unsigned ucmp(unsigned a, unsigned b) { return a >= b; }
int bits_set(uint64_t x, int i) { return (x >> i) & 1; }
uint64_t set_bit(uint64_t x, int i) { return x | (1ULL << (i & 63)); }
uint64_t clear_bit(uint64_t x, int i) { return x & ~(1ULL << (i & 63)); }
uint64_t flip_bit(uint64_t x, int i) { return x ^ (1ULL << (i & 63)); }
int64_t sext8(int64_t x) { return (int8_t)x; }
uint64_t zext16(uint64_t x) { return (uint16_t)x; }
#ifdef __SIZEOF_INT128__
int64_t add_carry(uint64_t a, uint64_t b, uint64_t *hi) { unsigned __int128 s = (unsigned __int128)a + b; *hi = s >> 64; return (int64_t)s; }
#endif
double dpoly(double x) { return ((3.0 * x + 2.0) * x - 1.5) * x + 0.25; }
float fpoly(float x) { return (x * x - 2.0f) * x + 1.0f; }
double dmin(double a, double b) { return a < b ? a : b; }
float fmax2(float a, float b) { return a > b ? a : b; }
int d2i(double x) { return (int)x; }
long f2l(float x) { return (long)x; }
double i2d(int x) { return x * 0.5; }
float l2f(long x) { return (float)x + 1.0f; }
double f2d(float x) { return (double)x * 3.0; }
float d2f(double x) { return (float)(x - 1.0); }
int dless(double a, double b) { return a < b; }
int fequal(float a, float b) { return a == b; }
double dabs(double x) { return x < 0 ? -x : x; }
double dneg(double x) { return -x; }
uint32_t hash32(uint32_t h) { h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13; h *= 0xc2b2ae35; h ^= h >> 16; return h; }
uint64_t hash64(uint64_t h) { h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL; return h ^ (h >> 33); }
int sum4(const int *a) { return a[0] + a[1] * 2 + a[2] * 3 + a[3] * 4; }
void add4(int *restrict d, const int *restrict a, const int *restrict b) { for (int i = 0; i < 4; i++) d[i] = a[i] + b[i]; }
void mul4(int *restrict d, const int *restrict a, const int *restrict b) { for (int i = 0; i < 4; i++) d[i] = a[i] * b[i]; }
void fadd4(float *restrict d, const float *restrict a, const float *restrict b) { for (int i = 0; i < 4; i++) d[i] = a[i] + b[i]; }
long sum_arr(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i]; return s; }
int count_eq(const unsigned char *s, int n, unsigned char c) { int k = 0; for (int i = 0; i < n; i++) k += s[i] == c; return k; }
int max_arr(const int *a, int n) { int m = a[0]; for (int i = 1; i < n; i++) m = a[i] > m ? a[i] : m; return m; }
void swap_pair(long *a, long *b) { long t = *a; *a = *b; *b = t; }
uint16_t crc_step(uint16_t crc, uint8_t b) { crc ^= b; for (int i = 0; i < 8; i++) crc = (crc >> 1) ^ (0xA001 & -(crc & 1)); return crc; }
int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
long isqrt(long x) { long r = 0; while ((r + 1) * (r + 1) <= x) r++; return r; }
unsigned parity(unsigned x) { return __builtin_parity(x); }
int64_t mulsub(int64_t a, int64_t b, int64_t c) { return a * b - c * 9; }
int32_t lea_like(int32_t a, int32_t b) { return a * 5 + b * 8 + 3; }
uint64_t shifts(uint64_t a, unsigned n) { return (a << (n & 15)) + ((int64_t)a >> (n & 7)) + (a >> 3); }
int bool_ops(int a, int b) { return (a && b) + (a || b) * 2 + !a * 4; }
