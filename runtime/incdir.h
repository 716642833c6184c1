/*
 * incdir.h — where the kpy/ runtime headers are (incdir.c): krun compiles
 * kcpu's output against them, keval copies them into a GPU bundle.
 */
#ifndef KPY_INCDIR_H
#define KPY_INCDIR_H

/* The directory holding the kpy/ headers: $KPY_INCLUDE, else the source tree's when
 * the program runs from its build tree, else the installed one. */
const char *kpy_includedir(void);

#endif /* KPY_INCDIR_H */
