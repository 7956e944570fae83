/*
 * Verifies that copy-on-write faults racing a fast interval timer are
 * served: parent and child of each fork write every page of a shared
 * buffer and fresh stack pages while ITIMER_REAL fires every 200 us into
 * a SIGALRM handler, round after round, and every child exits 0.
 *
 * argv[1], if given, is the number of rounds.
 */
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "guest.h"

#define NPAGES		128
#define STACK_PAGES	16
#define ROUNDS		1000

static volatile unsigned long ticks;
static unsigned char *buf;

static void
on_alrm(int sig)
{
	(void)sig;
	ticks++;
}

static void
timer_start(void)
{
	struct itimerval it = {
		.it_interval = { 0, 200 },
		.it_value = { 0, 200 },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Writes stack pages below the caller's that this process never used. */
static unsigned __attribute__((noinline))
stack_touch(unsigned seed)
{
	volatile unsigned char area[STACK_PAGES * GUEST_PAGE];
	unsigned sum = 0;

	for (unsigned i = 0; i < sizeof(area); i += GUEST_PAGE)
		area[i] = (unsigned char)(seed + i / GUEST_PAGE);
	for (unsigned i = 0; i < sizeof(area); i += GUEST_PAGE)
		sum += area[i];
	return sum;
}

/* Writes every page of buf and reads them back; 0 if all held. */
static int
cow_touch(unsigned char v)
{
	for (unsigned i = 0; i < NPAGES; i++)
		buf[i * GUEST_PAGE + i] = v;
	for (unsigned i = 0; i < NPAGES; i++)
		if (buf[i * GUEST_PAGE + i] != v)
			return -1;
	return 0;
}

static _Noreturn void
child(unsigned round)
{
	unsigned want = 0;

	timer_start();
	for (unsigned i = 0; i < STACK_PAGES; i++)
		want += (unsigned char)(round + i);
	if (cow_touch((unsigned char)(round | 1)) < 0 ||
	    stack_touch(round) != want)
		_exit(1);
	_exit(0);
}

int
main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : ROUNDS;
	unsigned bad = 0, lost = 0;

	buf = guest_anon(NPAGES * GUEST_PAGE, PROT_READ | PROT_WRITE);
	CHECK(buf != MAP_FAILED, "mmap the buffer");
	if (buf == MAP_FAILED)
		return guest_done();
	memset(buf, 0, NPAGES * GUEST_PAGE);
	timer_start();
	for (unsigned r = 0; r < rounds; r++) {
		pid_t pid = fork();
		int st = 0;

		if (pid == 0)
			child(r);
		if (pid < 0) {
			CHECK(pid >= 0, "fork in round %u", r);
			break;
		}
		if (cow_touch((unsigned char)(r & ~1u)) < 0)
			bad++;
		stack_touch(r);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (lost++ == 0)
				guest_note("round %u: child status %#x", r, st);
		}
	}
	CHECK(bad == 0, "%u rounds lost the parent's writes", bad);
	CHECK(lost == 0, "%u of %u children failed", lost, rounds);
	CHECK(ticks > 0, "the timer fired");
	return guest_done();
}
