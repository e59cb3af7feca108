struct student {
	char name[12];
	int scores[4];
};

int student_grade_stats(const struct student *s, int n, double *avg, char *best_name) {
	if (n <= 0)
		return -1;
	int best = -1, bi = 0;
	long total = 0;
	for (int i = 0; i < n; i++) {
		int sum = 0;
		for (int k = 0; k < 4; k++)
			sum += s[i].scores[k];
		total += sum;
		if (sum > best) {
			best = sum;
			bi = i;
		}
	}
	*avg = (double)total / (n * 4);
	for (int k = 0; k < 12; k++) {
		best_name[k] = s[bi].name[k];
		if (!best_name[k])
			break;
	}
	return bi;
}
