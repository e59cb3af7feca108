#include <stdio.h>
#include "mlua.h"

void m_init(mstate *L);

static void (*const openers[])(mstate *) = {open_base, open_math, open_str};

int main(int argc, char **argv) {
	static mstate st;
	mstate *L = &st;
	m_init(L);
	for (size_t i = 0; i < sizeof openers / sizeof openers[0]; i++)
		openers[i](L);
	unsigned char prog[64];
	size_t n = 0;
	for (int i = 1; i < argc && n + 1 < sizeof prog; i++)
		prog[n++] = (unsigned char)(argv[i][0] - '0');
	return m_exec(L, prog, n) < 0;
}
