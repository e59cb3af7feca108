double bisect_root(double (*f)(double), double lo, double hi, double tol) {
	double flo = f(lo);
	if (flo == 0)
		return lo;
	if (f(hi) == 0)
		return hi;
	if ((flo < 0) == (f(hi) < 0))
		return -1.0;
	while (hi - lo > tol) {
		double mid = lo + (hi - lo) / 2, fm = f(mid);
		if (fm == 0)
			return mid;
		if ((fm < 0) == (flo < 0)) {
			lo = mid;
			flo = fm;
		} else {
			hi = mid;
		}
	}
	return lo + (hi - lo) / 2;
}
