#include <stdint.h>

int64_t vm_run(const uint8_t *code, int len, int64_t arg) {
	int64_t stack[32];
	int sp = 0, pc = 0, steps = 0;
	stack[sp++] = arg;
	while (pc < len) {
		if (++steps > 10000)
			return -9999;
		uint8_t op = code[pc++];
		switch (op) {
		case 0: /* halt */
			return sp > 0 ? stack[sp - 1] : 0;
		case 1: /* push imm8 */
			if (pc >= len || sp >= 32) return -1;
			stack[sp++] = (int8_t)code[pc++];
			break;
		case 2: /* add */
			if (sp < 2) return -2;
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case 3: /* sub */
			if (sp < 2) return -2;
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case 4: /* mul */
			if (sp < 2) return -2;
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case 5: /* dup */
			if (sp < 1 || sp >= 32) return -2;
			stack[sp] = stack[sp - 1];
			sp++;
			break;
		case 6: /* swap */
			if (sp < 2) return -2;
			{
				int64_t t = stack[sp - 1];
				stack[sp - 1] = stack[sp - 2];
				stack[sp - 2] = t;
			}
			break;
		case 7: /* jnz rel8 */
			if (sp < 1 || pc >= len) return -2;
			{
				int8_t rel = (int8_t)code[pc++];
				if (stack[--sp] != 0)
					pc += rel;
				if (pc < 0) return -3;
			}
			break;
		case 8: /* drop */
			if (sp < 1) return -2;
			sp--;
			break;
		default:
			return -4;
		}
	}
	return sp > 0 ? stack[sp - 1] : 0;
}
