struct ring {
	int data[8];
	unsigned head, tail, count;
};

int ring_buffer_push(struct ring *r, int v, int overwrite) {
	if (r->count == 8) {
		if (!overwrite)
			return -1;
		r->head = (r->head + 1) % 8;
		r->count--;
	}
	r->data[r->tail] = v;
	r->tail = (r->tail + 1) % 8;
	r->count++;
	return (int)r->count;
}
