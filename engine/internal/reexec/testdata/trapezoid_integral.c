double trapezoid_integral(double (*f)(double), double a, double b, int n) {
	if (n <= 0)
		return 0.0;
	double h = (b - a) / n, s = 0.5 * (f(a) + f(b));
	for (int i = 1; i < n; i++)
		s += f(a + i * h);
	return s * h;
}
