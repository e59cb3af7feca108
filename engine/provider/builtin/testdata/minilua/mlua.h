/* A small stand-in for Lua's structure (issue 25 item 6): a state, a
 * value stack, libraries registered through luaL_Reg-like tables of
 * static functions, callbacks and a dispatch loop with a switch. */
#ifndef MLUA_H
#define MLUA_H
#include <stddef.h>

typedef struct mstate mstate;
typedef int (*mcfunc)(mstate *L);
typedef struct { const char *name; mcfunc func; } mreg;

struct mstate {
	double stack[64];
	int top;
	const mreg *globals[16];
	int nlibs;
	void (*panic)(mstate *L, const char *msg);
	int (*writer)(const char *s, size_t n, void *ud);
};

void m_push(mstate *L, double v);
double m_pop(mstate *L);
double m_check(mstate *L, int i);
int m_gettop(mstate *L);
void m_register(mstate *L, const mreg *lib);
mcfunc m_find(mstate *L, const char *name);
int m_call(mstate *L, const char *name);
int m_error(mstate *L, const char *msg);

void open_base(mstate *L);
void open_math(mstate *L);
void open_str(mstate *L);
int m_exec(mstate *L, const unsigned char *code, size_t n);
void m_sort(double *v, int n, int (*cmp)(const void *, const void *));
#endif
