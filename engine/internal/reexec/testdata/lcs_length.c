#include <string.h>

int lcs_length(const char *a, const char *b) {
	int n = (int)strlen(a), m = (int)strlen(b);
	if (n > 63 || m > 63)
		return -1;
	int dp[64][64];
	for (int i = 0; i <= n; i++) {
		for (int j = 0; j <= m; j++) {
			if (i == 0 || j == 0)
				dp[i][j] = 0;
			else if (a[i - 1] == b[j - 1])
				dp[i][j] = dp[i - 1][j - 1] + 1;
			else
				dp[i][j] = dp[i - 1][j] > dp[i][j - 1] ? dp[i - 1][j] : dp[i][j - 1];
		}
	}
	return dp[n][m];
}
