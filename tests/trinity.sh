#!/bin/sh
# Debian's trinity, the system-call fuzzer, as an unprivileged guest: the
# guest may fail as it likes, but vkernel must neither die nor hang.
# Usage: trinity.sh VKERNEL SECONDS SEED [MIN_CALLS]
#
# trinity runs as guest uid 65534 under a shell of guest root's, the
# command, that only waits for it.  After SECONDS vkernel gets SIGINT,
# which it passes to the command's group: trinity stops and says how many
# calls it made.
# Fails when vkernel is still there 60 s later (a hang: its report of
# the guest's threads, asked for with SIGUSR1, is printed), when it exits
# other than 0 (125: its own crash, with the report printed), or when
# trinity made fewer than MIN_CALLS calls (default 1000).  Prints
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
"$vk" run --crash-dir "$work/crash" -- /bin/sh -c \
    "trap '' INT; ($run); echo \"trinity status \$?\"" \
    >"$work/out" 2>&1 &
vkpid=$!
t=0
while kill -0 $vkpid 2>/dev/null && [ $t -lt $((secs + 60)) ]; do
	sleep 1
	t=$((t + 1))
	[ $t -eq "$secs" ] && kill -INT $vkpid
done
if kill -0 $vkpid 2>/dev/null; then
	# Still there a minute after SIGINT: its report of the guest's
	# threads (host SIGUSR1) says who waits for what, then it goes.
	kill -USR1 $vkpid
	sleep 5
	kill -KILL $vkpid
	wait $vkpid
	for f in "$work"/crash/state-*/tasks; do
		echo "== $f"; cat "$f"
	done >&2
	for f in "$work"/crash/state-*/strace.*; do
		echo "== $f (last 5)"; tail -n 5 "$f"
	done >&2
	echo "== vkernel's output (last 20)" >&2
	tail -n 20 "$work/out" >&2
	fail "vkernel hung: still there 60 s after SIGINT"
fi
wait $vkpid
st=$?
if [ -n "$(ls "$work/crash")" ]; then
	for f in "$work"/crash/*/message "$work"/crash/*/backtrace; do
		echo "== $f"; cat "$f"
	done >&2
	for f in "$work"/crash/*/strace.*; do
		echo "== $f (last 20)"; tail -n 20 "$f"
	done >&2
	fail "vkernel crashed (status $st)"
fi
[ $st -eq 0 ] || { tail -n 20 "$work/out" >&2; fail "vkernel exited $st"; }
n=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' "$work/out" | tail -n 1)
tst=$(sed -n 's/^trinity status \([0-9]*\)$/\1/p' "$work/out")
if [ -z "$n" ] && [ "${tst:-0}" -ne 0 ]; then
	n=$(sed -n 's/^\[main\] \([0-9]*\) iterations.*/\1/p' "$work/out" |
	    tail -n 1)
	echo "trinity: $seed: trinity itself ended with status $tst" >&2
fi
[ -n "$n" ] || { tail -n 20 "$work/out" >&2; fail "trinity said nothing"; }
[ "$n" -ge "$min" ] || fail "trinity made $n calls, want $min"
echo "trinity: $seed: $n calls"
