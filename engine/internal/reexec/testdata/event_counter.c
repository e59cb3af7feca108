struct counters {
	unsigned clicks, keys, scrolls, other;
	unsigned long total_weight;
};

void event_counter(struct counters *c, const int *events, int n) {
	for (int i = 0; i < n; i++) {
		switch (events[i]) {
		case 1:
			c->clicks++;
			c->total_weight += 3;
			break;
		case 2:
			c->keys++;
			c->total_weight += 1;
			break;
		case 3:
		case 4:
			c->scrolls++;
			c->total_weight += 2;
			break;
		default:
			c->other++;
		}
	}
}
