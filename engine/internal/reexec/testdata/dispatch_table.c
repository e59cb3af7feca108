typedef int (*binop)(int, int);

int dispatch_table(const binop *ops, int nops, const int *prog, int n, int start) {
	int acc = start;
	for (int i = 0; i + 1 < n; i += 2) {
		int op = prog[i];
		if (op < 0 || op >= nops || ops[op] == 0)
			return -1;
		acc = ops[op](acc, prog[i + 1]);
	}
	return acc;
}
