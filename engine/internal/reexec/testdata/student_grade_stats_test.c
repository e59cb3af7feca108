#include "check.h"
#include <string.h>
struct student {
	char name[12];
	int scores[4];
};
int student_grade_stats(const struct student *s, int n, double *avg, char *best_name);
int main(void) {
	struct student s[3] = {{"ann", {90, 80, 70, 60}}, {"bob", {100, 100, 90, 95}}, {"cy", {50, 50, 50, 50}}};
	double a = 0;
	char nm[12] = "zzz";
	CHECK(student_grade_stats(s, 3, &a, nm) == 1);
	CHECK(strcmp(nm, "bob") == 0);
	CHECK_NEAR(a, 885.0 / 12, 1e-12);
	CHECK(student_grade_stats(s, 1, &a, nm) == 0 && strcmp(nm, "ann") == 0);
	CHECK_NEAR(a, 75, 1e-12);
	CHECK(student_grade_stats(s, 0, &a, nm) == -1);
	CHECK(student_grade_stats(s + 2, 1, &a, nm) == 0 && strcmp(nm, "cy") == 0);
	return 0;
}
