int opcode_cost(int op) {
	switch (op) {
	case 0: return 1;
	case 1: return 3;
	case 2: return 3;
	case 3: return 7;
	case 4: return 2;
	case 5: return 11;
	case 6: return 5;
	case 7: return 4;
	case 8: return 9;
	case 9: return 13;
	case 10: return 6;
	case 11: return 8;
	default: return -1;
	}
}
