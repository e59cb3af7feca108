#include "mlua.h"

static int math_add(mstate *L) { m_push(L, m_pop(L) + m_pop(L)); return 1; }
static int math_sub(mstate *L) { double b = m_pop(L); m_push(L, m_pop(L) - b); return 1; }
static int math_mul(mstate *L) { m_push(L, m_pop(L) * m_pop(L)); return 1; }
static int math_div(mstate *L) {
	double b = m_pop(L);
	if (b == 0)
		return m_error(L, "division by zero");
	m_push(L, m_pop(L) / b);
	return 1;
}
static int math_abs(mstate *L) { double a = m_pop(L); m_push(L, a < 0 ? -a : a); return 1; }
static int math_max(mstate *L) {
	int n = m_gettop(L);
	double m = m_check(L, 1);
	for (int i = 2; i <= n; i++)
		if (m_check(L, i) > m)
			m = m_check(L, i);
	m_push(L, m);
	return 1;
}
static int math_floor(mstate *L) {
	double a = m_pop(L);
	long k = (long)a;
	m_push(L, (double)(k - (a < (double)k)));
	return 1;
}
static int math_fact(mstate *L) {
	long n = (long)m_pop(L), r = 1;
	while (n > 1)
		r *= n--;
	m_push(L, (double)r);
	return 1;
}

static const mreg math_lib[] = {
	{"add", math_add}, {"sub", math_sub}, {"mul", math_mul}, {"div", math_div},
	{"abs", math_abs}, {"max", math_max}, {"floor", math_floor}, {"fact", math_fact},
	{NULL, NULL},
};

void open_math(mstate *L) { m_register(L, math_lib); }
