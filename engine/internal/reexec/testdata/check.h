/* The assertions of the re-executability corpus's test mains: silent on
 * success; on failure the file and line, and exit status 1. */
#ifndef REEXEC_CHECK_H
#define REEXEC_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CHECK(cond)                                                          \
	do {                                                                     \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
			        #cond);                                                  \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

/* Floating-point results may differ in the last bits between targets
 * (arm64 contracts a*b+c into one fused multiply-add). */
#define CHECK_NEAR(got, want, tol)                                           \
	do {                                                                     \
		double g_ = (got), w_ = (want);                                      \
		if (!(fabs(g_ - w_) <= (tol) * (1.0 + fabs(w_)))) {                  \
			fprintf(stderr, "%s:%d: CHECK_NEAR(%s) got %.17g want %.17g\n",  \
			        __FILE__, __LINE__, #got, g_, w_);                       \
			exit(1);                                                         \
		}                                                                    \
	} while (0)
#endif
