#include <stdio.h>
#include <stdlib.h>
#include "mlua.h"

static int b_print(mstate *L) {
	char buf[64];
	int n = m_gettop(L);
	for (int i = n; i >= 1; i--) {
		int k = snprintf(buf, sizeof buf, "%g%s", m_check(L, i), i > 1 ? "\t" : "\n");
		L->writer(buf, (size_t)k, stdout);
	}
	return 0;
}

static int b_pop(mstate *L) {
	m_pop(L);
	return 0;
}

static int b_dup(mstate *L) {
	m_push(L, m_check(L, 1));
	return 1;
}

static int b_swap(mstate *L) {
	double a = m_pop(L), b = m_pop(L);
	m_push(L, a);
	m_push(L, b);
	return 2;
}

static int cmp_num(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_rev(const void *a, const void *b) { return cmp_num(b, a); }

static int b_sort(mstate *L) {
	m_sort(L->stack, L->top, cmp_num);
	return 0;
}

static int b_rsort(mstate *L) {
	qsort(L->stack, (size_t)L->top, sizeof(double), cmp_rev);
	return 0;
}

static const mreg base_lib[] = {
	{"print", b_print}, {"pop", b_pop}, {"dup", b_dup}, {"swap", b_swap},
	{"sort", b_sort}, {"rsort", b_rsort}, {NULL, NULL},
};

void open_base(mstate *L) { m_register(L, base_lib); }

void m_sort(double *v, int n, int (*cmp)(const void *, const void *)) {
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cmp(&v[j - 1], &v[j]) > 0; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}
