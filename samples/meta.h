/* meta.h — the "key value" lines of a kernel's meta file (kgen writes them;
 * kshard and kpack read them). */
#ifndef KPY_META_H
#define KPY_META_H

/* The value of key in meta's lines, "key value" or "key=value" (the first
 * such line), malloc'd; NULL when no line has it. */
char *metaget(const char *meta, const char *key);

#endif
