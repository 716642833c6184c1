/* meta.c — the "key value" lines of a kernel's meta file (see meta.h). */
#include <string.h>

#include "ir.h"
#include "meta.h"

char *
metaget(const char *meta, const char *key)
{
	size_t k = strlen(key);
	const char *p = meta;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > k && strncmp(p, key, k) == 0 && (p[k] == ' ' || p[k] == '=')) {
			size_t vn = n - k - 1;
			char *r = xmalloc(vn + 1);
			memcpy(r, p + k + 1, vn);
			r[vn] = 0;
			return r;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}
