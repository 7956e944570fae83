/*
 * sitecall - system calls made at sites "mov $NR, %eax; syscall", the
 * shape the systrap platform patches (libc's wrappers have it; syscall(2)
 * does not, so getpid.c's calls always trap).
 *
 * Usage: sitecall getpid|openclose|stat [ITERS|auto]
 */
#include "bench.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

long site_getpid(void);
long site_open(const char *path, int flags, int mode);
long site_close(int fd);
long site_stat(const char *path, struct stat *st);
__asm__(".text\n"
    "site_getpid:\n\tmov $39, %eax\n\tsyscall\n\tret\n"
    "site_open:\n\tmov $2, %eax\n\tsyscall\n\tret\n"
    "site_close:\n\tmov $3, %eax\n\tsyscall\n\tret\n"
    "site_stat:\n\tmov $4, %eax\n\tsyscall\n\tret\n");

static long long
run_getpid(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++)
		site_getpid();
	return bench_now_ns() - t0;
}

static long long
run_openclose(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++)
		site_close((int)site_open("/etc/passwd", O_RDONLY, 0));
	return bench_now_ns() - t0;
}

static long long
run_stat(long n, void *ctx)
{
	struct stat st;
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++)
		site_stat("/etc/passwd", &st);
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "getpid";
	bench_fn fn = strcmp(mode, "openclose") == 0 ? run_openclose :
	    strcmp(mode, "stat") == 0 ? run_stat : run_getpid;
	long n = bench_iters(argc > 2 ? argv[2] : NULL, fn, NULL);

	bench_report(mode, n, fn(n, NULL), NULL);
	return 0;
}
