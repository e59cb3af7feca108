struct node {
	int value;
	struct node *next;
};

long list_sum(const struct node *head) {
	long s = 0;
	for (; head; head = head->next)
		s += head->value;
	return s;
}
