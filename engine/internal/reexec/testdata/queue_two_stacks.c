struct queue2 {
	int in[16], out[16];
	int nin, nout;
};

int queue_two_stacks(struct queue2 *q, int op, int value, int *got) {
	if (op == 0) {
		if (q->nin == 16)
			return -1;
		q->in[q->nin++] = value;
		return 0;
	}
	if (q->nout == 0) {
		while (q->nin > 0)
			q->out[q->nout++] = q->in[--q->nin];
	}
	if (q->nout == 0)
		return -2;
	*got = q->out[--q->nout];
	return 0;
}
