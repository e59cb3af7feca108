struct account {
	long id;
	long balance_cents;
	int frozen;
};

int account_transfer(struct account *from, struct account *to, long cents) {
	if (cents <= 0)
		return -1;
	if (from->frozen || to->frozen)
		return -2;
	if (from == to)
		return -3;
	if (from->balance_cents < cents)
		return -4;
	from->balance_cents -= cents;
	to->balance_cents += cents;
	return 0;
}
