#include "mlua.h"

enum { OP_PUSH, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_DUP, OP_POP, OP_CALL, OP_JMPZ, OP_JMP, OP_HALT };

static const char *const callnames[] = {"print", "add", "max", "fact", "hash", "sort", "abs", "byte"};

static int vm_arith(mstate *L, int op) {
	double b = m_pop(L), a = m_pop(L);
	switch (op) {
	case OP_ADD: m_push(L, a + b); break;
	case OP_SUB: m_push(L, a - b); break;
	case OP_MUL: m_push(L, a * b); break;
	case OP_DIV: m_push(L, b != 0 ? a / b : 0); break;
	default: return m_error(L, "bad arith");
	}
	return 0;
}

int m_exec(mstate *L, const unsigned char *code, size_t n) {
	size_t pc = 0;
	while (pc < n) {
		unsigned char op = code[pc++];
		switch (op) {
		case OP_PUSH: m_push(L, pc < n ? code[pc++] : 0); break;
		case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
			if (vm_arith(L, op) < 0) return -1;
			break;
		case OP_NEG: m_push(L, -m_pop(L)); break;
		case OP_DUP: { double v = m_pop(L); m_push(L, v); m_push(L, v); break; }
		case OP_POP: m_pop(L); break;
		case OP_CALL:
			if (pc < n && m_call(L, callnames[code[pc++] & 7]) < 0) return -1;
			break;
		case OP_JMPZ: if (m_pop(L) == 0 && pc < n) { pc = code[pc]; break; } pc++; break;
		case OP_JMP: if (pc < n) pc = code[pc]; break;
		case OP_HALT: return 0;
		default: return m_error(L, "bad opcode");
		}
	}
	return 0;
}
