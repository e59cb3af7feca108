struct point {
	double x, y;
};

int point_centroid(const struct point *pts, int n, struct point *out) {
	if (n <= 0)
		return -1;
	double sx = 0, sy = 0;
	for (int i = 0; i < n; i++) {
		sx += pts[i].x;
		sy += pts[i].y;
	}
	out->x = sx / n;
	out->y = sy / n;
	return 0;
}
