double newton_sqrt(double x) {
	if (x < 0)
		return -1.0;
	if (x == 0)
		return 0.0;
	double g = x > 1 ? x : 1.0;
	for (int i = 0; i < 100; i++) {
		double n = 0.5 * (g + x / g);
		if (n == g)
			break;
		g = n;
	}
	return g;
}
