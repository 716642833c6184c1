/*
 * sandbox.c — confine the rest of this process, before it loads untrusted
 * code (a candidate kernel module, see keval(1)): see sandbox.h.
 *
 * Two layers, both inherited by nothing (the process may not start any):
 *  - a seccomp filter, an allow-list of the system calls a loaded module and
 *    krun need (memory, reading open files, writing to open descriptors,
 *    signals to itself, exit).  Anything else kills the process with
 *    SIGSYS, so the attempt is visible to the parent (keval reports it) and
 *    never carried out: sockets, exec, fork, ptrace, and every open() that
 *    could write (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND), mkdir,
 *    unlink, rename, link, chmod, truncate ...
 *  - a Landlock ruleset (Linux 5.13+), when the kernel has it: files may be
 *    opened for reading only beneath the system's library folders and the
 *    folder given; no writes anywhere; no TCP; no signals to or abstract
 *    sockets of processes outside the sandbox.  So a module cannot read the
 *    records, the checker's files or other candidates' folders.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include "sandbox.h"

#if defined(__x86_64__)
#define SB_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SB_ARCH AUDIT_ARCH_AARCH64
#endif

static void
seterr(char *err, size_t nerr, const char *what)
{
	snprintf(err, nerr, "sandbox: %s: %s", what, strerror(errno));
}

/* ---- Landlock ------------------------------------------------------ */

#ifdef LANDLOCK_CREATE_RULESET_VERSION
static int
addpath(int rs, const char *path, unsigned long long access)
{
	struct landlock_path_beneath_attr pb;
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	memset(&pb, 0, sizeof pb);
	pb.allowed_access = access;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc;
}
#endif

/* 1: confined; 0: the kernel has no Landlock; -1: failed (errno). */
static int
landlock(const char *dir)
{
#ifdef LANDLOCK_CREATE_RULESET_VERSION
	static const char *const sys[] = {"/usr", "/lib", "/lib64", "/lib32", "/etc", "/opt", "/dev/null",
	                                  "/dev/zero", "/dev/urandom", "/proc/self", "/sys/devices/system/cpu"};
	struct landlock_ruleset_attr ra;
	unsigned long long read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
	                          LANDLOCK_ACCESS_FS_EXECUTE;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	size_t i, size;
	int rs;

	if (abi < 1)
		return errno == ENOSYS || errno == EOPNOTSUPP || errno == EPERM ? 0 : -1; /* EPERM: a container's filter */
	memset(&ra, 0, sizeof ra);
	ra.handled_access_fs = (1ULL << 13) - 1; /* ABI 1: every right on files */
	if (abi >= 2)
		ra.handled_access_fs |= 1ULL << 13; /* REFER */
	if (abi >= 3)
		ra.handled_access_fs |= 1ULL << 14; /* TRUNCATE */
	size = offsetof(struct landlock_ruleset_attr, handled_access_fs) + sizeof ra.handled_access_fs;
#if defined(LANDLOCK_ACCESS_NET_CONNECT_TCP)
	if (abi >= 4) {
		ra.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct landlock_ruleset_attr, handled_access_net) + sizeof ra.handled_access_net;
	}
#endif
#if defined(LANDLOCK_SCOPE_SIGNAL)
	if (abi >= 6) {
		ra.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		size = offsetof(struct landlock_ruleset_attr, scoped) + sizeof ra.scoped;
	}
#endif
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &ra, size, 0)) < 0)
		return -1;
	for (i = 0; i < sizeof sys / sizeof sys[0]; i++)
		if (addpath(rs, sys[i], read & ra.handled_access_fs) < 0 && errno != EINVAL)
			goto fail;
	/* a file (not a folder) takes only the file rights */
	if (addpath(rs, dir, read) < 0)
		goto fail;
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		goto fail;
	close(rs);
	return 1;
fail:
	close(rs);
	return -1;
#else
	(void)dir;
	return 0;
#endif
}

/* ---- seccomp ------------------------------------------------------- */

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args) + 8 * (i))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(SECCOMP_RET_ALLOW)

/* Write-capable open flags. */
#define WRFLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

static int
seccomp(void)
{
#ifdef SB_ARCH
	uint32_t self = (uint32_t)getpid();
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SB_ARCH, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD_NR,
		/* memory, reading, writing to descriptors already open */
		ALLOW(__NR_read), ALLOW(__NR_write), ALLOW(__NR_readv), ALLOW(__NR_writev), ALLOW(__NR_pread64),
		ALLOW(__NR_lseek), ALLOW(__NR_close), ALLOW(__NR_fstat), ALLOW(__NR_newfstatat), ALLOW(__NR_statx),
		ALLOW(__NR_mmap), ALLOW(__NR_mprotect), ALLOW(__NR_munmap), ALLOW(__NR_mremap), ALLOW(__NR_madvise),
		ALLOW(__NR_brk), ALLOW(__NR_rt_sigaction), ALLOW(__NR_rt_sigprocmask), ALLOW(__NR_rt_sigreturn),
		ALLOW(__NR_sigaltstack), ALLOW(__NR_exit), ALLOW(__NR_exit_group), ALLOW(__NR_futex),
		ALLOW(__NR_getpid), ALLOW(__NR_gettid), ALLOW(__NR_getrandom), ALLOW(__NR_clock_gettime),
		ALLOW(__NR_gettimeofday), ALLOW(__NR_nanosleep), ALLOW(__NR_clock_nanosleep), ALLOW(__NR_ioctl),
		ALLOW(__NR_fcntl), ALLOW(__NR_getcwd), ALLOW(__NR_readlinkat), ALLOW(__NR_faccessat),
		ALLOW(__NR_getdents64), ALLOW(__NR_uname), ALLOW(__NR_sched_getaffinity), ALLOW(__NR_sched_yield),
		ALLOW(__NR_getuid), ALLOW(__NR_geteuid), ALLOW(__NR_getgid), ALLOW(__NR_getegid),
		ALLOW(__NR_sysinfo), ALLOW(__NR_set_robust_list), ALLOW(__NR_rseq), ALLOW(__NR_prlimit64),
		ALLOW(__NR_getrusage), ALLOW(__NR_times), ALLOW(__NR_dup), ALLOW(__NR_dup3),
#ifdef __NR_faccessat2
		ALLOW(__NR_faccessat2),
#endif
#ifdef __NR_arch_prctl
		ALLOW(__NR_arch_prctl),
#endif
#ifdef __NR_stat
		ALLOW(__NR_stat), ALLOW(__NR_lstat), ALLOW(__NR_access), ALLOW(__NR_readlink), ALLOW(__NR_dup2),
#endif
		/* clone3: "not implemented", so that a library falls back to clone */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		RET(SECCOMP_RET_ERRNO | ENOSYS),
		/* threads, not processes */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
		LD_ARG(0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x00010000 /* CLONE_THREAD */, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
		/* signals to itself only (abort(), raise()) */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 4),
		LD_ARG(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
		/* opening for reading */
#ifdef __NR_open
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 0, 4),
		LD_ARG(1),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRFLAGS, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 4),
		LD_ARG(2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRFLAGS, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
		RET(SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

int
kpy_landlock_abi(void)
{
#ifdef LANDLOCK_CREATE_RULESET_VERSION
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : 0;
#else
	return 0;
#endif
}

int
kpy_sandbox(const char *dir, char *err, size_t nerr)
{
	int ll;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		seterr(err, nerr, "no_new_privs");
		return -1;
	}
	if ((ll = landlock(dir)) < 0) {
		seterr(err, nerr, "landlock");
		return -1;
	}
	if (seccomp() < 0) {
		seterr(err, nerr, "seccomp");
		return -1;
	}
	return ll;
}
