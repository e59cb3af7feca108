#include <stdio.h>
#include <string.h>
#include "mlua.h"

static void default_panic(mstate *L, const char *msg) {
	fprintf(stderr, "panic at %d: %s\n", L->top, msg);
}

static int default_writer(const char *s, size_t n, void *ud) {
	return (int)fwrite(s, 1, n, (FILE *)ud);
}

void m_push(mstate *L, double v) {
	if (L->top >= 64) {
		L->panic(L, "stack overflow");
		return;
	}
	L->stack[L->top++] = v;
}

double m_pop(mstate *L) {
	if (L->top <= 0) {
		L->panic(L, "stack underflow");
		return 0;
	}
	return L->stack[--L->top];
}

double m_check(mstate *L, int i) {
	if (i < 1 || i > L->top) {
		m_error(L, "bad argument");
		return 0;
	}
	return L->stack[L->top - i];
}

int m_gettop(mstate *L) { return L->top; }

void m_register(mstate *L, const mreg *lib) {
	if (L->nlibs < 16)
		L->globals[L->nlibs++] = lib;
}

mcfunc m_find(mstate *L, const char *name) {
	for (int i = 0; i < L->nlibs; i++)
		for (const mreg *r = L->globals[i]; r->name; r++)
			if (strcmp(r->name, name) == 0)
				return r->func;
	return NULL;
}

int m_call(mstate *L, const char *name) {
	mcfunc f = m_find(L, name);
	if (!f)
		return m_error(L, name);
	return f(L);
}

int m_error(mstate *L, const char *msg) {
	L->panic(L, msg);
	return -1;
}

void m_init(mstate *L) {
	memset(L, 0, sizeof *L);
	L->panic = default_panic;
	L->writer = default_writer;
}
