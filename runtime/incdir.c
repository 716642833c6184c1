/*
 * incdir.c — where the kpy/ runtime headers are (incdir.h).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "incdir.h"

#ifndef KPY_SRC_INCLUDE
#define KPY_SRC_INCLUDE ""
#endif
#ifndef KPY_INSTALL_INCLUDE
#define KPY_INSTALL_INCLUDE "/usr/local/include"
#endif
#ifndef KPY_BUILD_DIR
#define KPY_BUILD_DIR ""
#endif

const char *
kpy_includedir(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("KPY_INCLUDE");
	char exe[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0 && KPY_BUILD_DIR[0]) {
		char *slash, real[PATH_MAX];
		exe[n] = 0;
		if ((slash = strrchr(exe, '/')))
			*slash = 0;
		if (realpath(KPY_BUILD_DIR, real) && strcmp(real, exe) == 0 && KPY_SRC_INCLUDE[0]) {
			snprintf(buf, sizeof buf, "%s", KPY_SRC_INCLUDE);
			return buf;
		}
	}
	snprintf(buf, sizeof buf, "%s/kpy/core.h", KPY_INSTALL_INCLUDE);
	if ((stat(buf, &st) == 0 && S_ISREG(st.st_mode)) || !KPY_SRC_INCLUDE[0])
		return KPY_INSTALL_INCLUDE;
	return KPY_SRC_INCLUDE;
}
