#!/bin/sh
# Debian's trinity, the system-call fuzzer, as an unprivileged guest: the
# guest may fail as it likes, but vkernel must neither die nor hang.
# Usage: trinity.sh VKERNEL SECONDS SEED [MIN_CALLS [PLATFORM]]
#
# PLATFORM, when given, is vkernel's --platform (ptrace or systrap); the
# default is vkernel's own choice.
#
# trinity runs as guest uid 65534 under a shell of guest root's, the
# command, that only waits for it.  After SECONDS vkernel gets SIGINT,
# which it passes to the command's group: trinity stops and says how many
# calls it made.
# When the guest is still there 60 s after SIGINT, vkernel is asked for
# its report of the guest's threads (host SIGUSR1), which is printed, and
# then ended with SIGTERM twice (the second ends the sandbox at once).
# Fails when vkernel does not answer the report, when the report shows a
# waiting thread with a signal pending that it does not block (a signal
# vkernel failed to act on), when the sandbox does not end then (each a
# hang of vkernel's), when vkernel exits other than 0 (save by that ending)
# (125: its own crash, with the report printed), or when trinity made
# fewer than MIN_CALLS calls (default 1000; after such an ending, the
# calls vkernel counted, --stats).  A guest that outlives SIGINT with
# vkernel answering is said on stderr, with the report, not failed:
# trinity's children can stop or block their own kind.  Prints
# "trinity: SEED: N calls".
#
# The command says how trinity ended and exits 0 itself, so that a
# status other than 0 is vkernel's or the shell's, never trinity's.  trinity may die
# by its own doing (its children fuzz signals and fds it shares with
# them): then its calls are counted from its progress lines, one each
# 10,000 calls, and the run passes if they are enough.
#
# Why the command is root's: trinity's children aim at pids 1 and 2
# (pidfd_open, kill, prlimit64 of RLIMIT_CPU), natively the host's init
# and out of their reach.  The sandbox's would be theirs to reach, as a
# container's would, were it of their uid: RLIMIT_CPU 0 kills any
# process.  Run by an ordinary user, vkernel's guest is that user alone,
# and a child's prlimit64 can end the run early.
#
# --disable-fds=sockets: Debian 12's trinity (2023.01) crashes by itself
# in its socket set-up ("Couldn't find socket cachefile. Regenerating.",
# then SIGSEGV), inside vkernel and natively alike, even in a network
# namespace of the host kernel with all its families (`unshare -n
# setpriv --reuid=65534 ... trinity -q -l off -s 4242 -C 2`).  The
# socket calls are still fuzzed; only its pool of ready socket fds
# stays out.
vk=$(readlink -f "$1")
secs=$2
seed=$3
min=${4:-1000}
platform=${5:+--platform=$5}
fail() { echo "FAIL: trinity seed $seed: $*" >&2; exit 1; }

command -v trinity >/dev/null || { echo "skip: no trinity"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
run="exec $(command -v trinity) -q -l off -s $seed -C 8 --disable-fds=sockets"
if [ "$(id -u)" = 0 ]; then
	[ -x /bin/busybox ] || { echo "skip: no /bin/busybox (su)"; exit 77; }
	run="/bin/busybox su -s /bin/sh -c '$run' nobody"
fi
mkdir "$work/crash"
cd "$work" || exit 1
# vkernel's report of its guest's threads and the host's process tree.
report() {
	for f in "$work"/crash/state-*/tasks; do
		echo "== $f"; cat "$f"
	done
	for f in "$work"/crash/state-*/strace.*; do
		echo "== $f (last 5)"; tail -n 5 "$f"
	done
	echo "== host processes"
	ps -N --ppid 2 --pid 2 -o pid,ppid,stat,wchan:24,time,comm --forest |
	    head -n 80
	echo "== vkernel's output (last 20)"
	tail -n 20 "$work/out"
}
"$vk" run $platform --stats --crash-dir "$work/crash" -- /bin/sh -c \
    "trap '' INT; ($run); echo \"trinity status \$?\"" \
    >"$work/out" 2>&1 &
vkpid=$!
t=0
while kill -0 $vkpid 2>/dev/null && [ $t -lt $((secs + 60)) ]; do
	sleep 1
	t=$((t + 1))
	[ $t -eq "$secs" ] && kill -INT $vkpid
done
late=
if kill -0 $vkpid 2>/dev/null; then
	# Still there a minute after SIGINT: vkernel's report of the
	# guest's threads (host SIGUSR1) says who waits for what.
	kill -USR1 $vkpid
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ls "$work"/crash/state-*/tasks >/dev/null 2>&1 && break
		sleep 1
	done
	sleep 1
	report >&2
	if ! ls "$work"/crash/state-*/tasks >/dev/null 2>&1; then
		kill -KILL $vkpid
		fail "vkernel hung: it did not answer SIGUSR1"
	fi
	# A thread that waits (not stopped, not woken: deadline 0) with a
	# signal pending that it does not block is one vkernel failed to
	# interrupt.
	lost=$(python3 -c '
import re, sys
for l in open(sys.argv[1]):
    m = re.search(r"comm \"[^\"]*\" parked( exiting)? wait .* "
        r"deadline (-?[0-9]+) pending (0x[0-9a-f]+|0)/(0x[0-9a-f]+|0) "
        r"blocked (0x[0-9a-f]+|0)$", l)
    if m and m.group(2) != "0" and \
        (int(m.group(3), 16) | int(m.group(4), 16)) & ~int(m.group(5), 16):
        print(l.strip())' "$(ls "$work"/crash/state-*/tasks | head -n 1)")
	if [ -n "$lost" ]; then
		kill -KILL $vkpid
		fail "a signal lost at a waiting thread: $lost"
	fi
	# The guest did not end; vkernel must still end it: a second
	# SIGTERM ends the sandbox at once.
	kill -TERM $vkpid
	sleep 2
	kill -TERM $vkpid 2>/dev/null
	t=0
	while kill -0 $vkpid 2>/dev/null && [ $t -lt 30 ]; do
		sleep 1
		t=$((t + 1))
	done
	if kill -0 $vkpid 2>/dev/null; then
		kill -KILL $vkpid
		fail "vkernel hung: the sandbox did not end at SIGTERM"
	fi
	late=yes
fi
wait $vkpid
st=$?
if ls -d "$work"/crash/crash-* >/dev/null 2>&1; then
	for f in "$work"/crash/crash-*/message "$work"/crash/crash-*/backtrace; do
		echo "== $f"; cat "$f"
	done >&2
	for f in "$work"/crash/crash-*/strace.*; do
		echo "== $f (last 20)"; tail -n 20 "$f"
	done >&2
	fail "vkernel crashed (status $st)"
fi
if [ -n "$late" ]; then
	# The guest's calls as vkernel counted them (--stats).
	n=$(sed -n 's/^total  *\([0-9]*\)$/\1/p' "$work/out" | tail -n 1)
	echo "trinity: $seed: the guest did not end at SIGINT (above);" \
	    "vkernel answered and ended it" >&2
else
	[ $st -eq 0 ] ||
		{ tail -n 20 "$work/out" >&2; fail "vkernel exited $st"; }
	# --stats names the platform that ran.
	[ -z "$platform" ] || grep -q "^platform: $5\$" "$work/out" ||
		fail "vkernel did not say it ran under $5"
	n=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' "$work/out" |
	    tail -n 1)
	tst=$(sed -n 's/^trinity status \([0-9]*\)$/\1/p' "$work/out")
	if [ -z "$n" ] && [ "${tst:-0}" -ne 0 ]; then
		n=$(sed -n 's/^\[main\] \([0-9]*\) iterations.*/\1/p' \
		    "$work/out" | tail -n 1)
		echo "trinity: $seed: trinity itself ended with status $tst" >&2
	fi
fi
[ -n "$n" ] || { tail -n 20 "$work/out" >&2; fail "trinity said nothing"; }
[ "$n" -ge "$min" ] ||
	{ tail -n 40 "$work/out" >&2; fail "trinity made $n calls, want $min"; }
echo "trinity: $seed: $n calls"
