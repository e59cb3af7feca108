/* AArch64 additions to the lifters' shared corpus (engine/lift/internal/lifttest/testdata/corpus.c),
 * compiled with it: floating point forms GCC contracts or calls inline
 * (fmadd, frint*, fcvt*, fmin/fmax) and small vectorisable bodies. */
#include <math.h>
double fma_d(double a, double b, double c) { return a * b + c; }
float fms_f(float a, float b, float c) { return c - a * b; }
double floor_d(double x) { return floor(x); }
float ceil_f(float x) { return ceilf(x); }
double trunc_d(double x) { return trunc(x); }
double round_d(double x) { return round(x); }
long lround_d(double x) { return lround(x); }
unsigned long d2u(double x) { return (unsigned long)x; }
unsigned f2u32(float x) { return (unsigned)x; }
double u2d(unsigned long x) { return (double)x; }
float u2f(unsigned x) { return (float)x; }
double fmin_d(double a, double b) { return fmin(a, b); }
float fmax_f(float a, float b) { return fmaxf(a, b); }
double sel_d(double a, double b, double c) { return a < b ? c : a + b; }
int fcmp_le(double a, double b) { return a <= b; }
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
void vadd4(v4u *d, const v4u *a, const v4u *b) { *d = *a + *b; }
void vcmp16(v16u8 *d, const v16u8 *a, const v16u8 *b) { *d = *a == *b; }
void vsplat(v4u *d, uint32_t x) { *d = (v4u){x, x, x, x}; }
uint32_t vlane(const v4u *a) { return (*a)[2]; }
int popc64(uint64_t x) { return __builtin_popcountll(x); }
void zero32(uint64_t *p) { p[0] = p[1] = p[2] = p[3] = 0; }
