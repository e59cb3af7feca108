struct item {
	const char *name;
	int qty;
	double unit_price;
	int category;
};

double inventory_total(const struct item *items, int n, int category, int *count) {
	double total = 0;
	*count = 0;
	for (int i = 0; i < n; i++) {
		if (category >= 0 && items[i].category != category)
			continue;
		if (items[i].qty <= 0)
			continue;
		total += items[i].qty * items[i].unit_price;
		(*count)++;
	}
	return total;
}
