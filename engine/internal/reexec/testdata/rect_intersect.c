struct rect {
	int x, y, w, h;
};

int rect_intersect(const struct rect *a, const struct rect *b, struct rect *out) {
	int x1 = a->x > b->x ? a->x : b->x;
	int y1 = a->y > b->y ? a->y : b->y;
	int x2 = a->x + a->w < b->x + b->w ? a->x + a->w : b->x + b->w;
	int y2 = a->y + a->h < b->y + b->h ? a->y + a->h : b->y + b->h;
	if (x2 <= x1 || y2 <= y1)
		return 0;
	out->x = x1;
	out->y = y1;
	out->w = x2 - x1;
	out->h = y2 - y1;
	return 1;
}
