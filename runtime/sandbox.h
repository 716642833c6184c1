/*
 * sandbox.h — confine this process before it loads untrusted code (krun
 * --sandbox, for keval's candidates).  Linux only (seccomp, Landlock).
 */
#ifndef KPY_SANDBOX_H
#define KPY_SANDBOX_H

#include <stddef.h>

/* From now on this process may open files for reading only beneath dir
 * and the system's library folders (when the kernel has Landlock), and make
 * only the system calls of a computation on open descriptors: any other
 * (a socket, exec, fork, an open() that could write, unlink, ...) kills it
 * with SIGSYS.  Returns 1 (both layers), 0 (seccomp only: no Landlock in
 * this kernel), or -1 with a message in err (nothing is confined then only
 * if the first step failed). */
int kpy_sandbox(const char *dir, char *err, size_t nerr);
/* The Landlock ABI version of this kernel, 0 if it has none. */
int kpy_landlock_abi(void);

#endif /* KPY_SANDBOX_H */
