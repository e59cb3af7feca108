struct date {
	int year, month, day;
};

void date_add_days(struct date *d, int days) {
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	while (days > 0) {
		int leap = (d->year % 4 == 0 && d->year % 100 != 0) || d->year % 400 == 0;
		int dim = mdays[d->month - 1] + (d->month == 2 && leap);
		if (d->day + days <= dim) {
			d->day += days;
			return;
		}
		days -= dim - d->day + 1;
		d->day = 1;
		if (++d->month > 12) {
			d->month = 1;
			d->year++;
		}
	}
}
