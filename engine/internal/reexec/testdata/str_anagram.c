int str_anagram(const char *a, const char *b) {
	int counts[256] = {0};
	for (; *a; a++)
		counts[(unsigned char)*a]++;
	for (; *b; b++)
		counts[(unsigned char)*b]--;
	for (int i = 0; i < 256; i++)
		if (counts[i] != 0)
			return 0;
	return 1;
}
