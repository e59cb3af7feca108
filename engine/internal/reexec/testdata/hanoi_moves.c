long hanoi_moves(int n, int from, int to, int via, int *log, int cap) {
	if (n <= 0)
		return 0;
	long k = hanoi_moves(n - 1, from, via, to, log, cap);
	if (k < cap)
		log[k] = from * 10 + to;
	k++;
	return k + hanoi_moves(n - 1, via, to, from, k < cap ? log + k : log, k < cap ? cap - (int)k : 0);
}
