long sum_digits_tail(unsigned long v, long acc) {
	if (v == 0)
		return acc;
	return sum_digits_tail(v / 10, acc + (long)(v % 10));
}
