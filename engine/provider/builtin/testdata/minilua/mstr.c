#include <string.h>
#include "mlua.h"

static int str_len_of(mstate *L) { m_push(L, (double)strlen("mlua")); return 1; }
static int str_hash(mstate *L) {
	unsigned h = 5381;
	int n = (int)m_pop(L);
	for (int i = 0; i < n; i++)
		h = h * 33 + (unsigned)i;
	m_push(L, (double)(h & 0xffff));
	return 1;
}
static int str_byte(mstate *L) {
	int i = (int)m_pop(L);
	const char *s = "abcdefghijklmnopqrstuvwxyz";
	m_push(L, i >= 0 && i < 26 ? (double)s[i] : -1);
	return 1;
}

static const mreg str_lib[] = {
	{"len", str_len_of}, {"hash", str_hash}, {"byte", str_byte}, {NULL, NULL},
};

void open_str(mstate *L) { m_register(L, str_lib); }
