struct vec3d {
	double x, y, z;
};

void vec3_cross(const struct vec3d *a, const struct vec3d *b, struct vec3d *out) {
	double x = a->y * b->z - a->z * b->y;
	double y = a->z * b->x - a->x * b->z;
	double z = a->x * b->y - a->y * b->x;
	out->x = x;
	out->y = y;
	out->z = z;
}
