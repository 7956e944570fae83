#!/bin/sh
# Memory as Linux accounts it, through the vkernel binary: overcommit
# lets an AddressSanitizer program start, and the OOM killer ends the
# process Linux would pick, with one line on stderr, when --mem runs out
# under touched or copied pages; the rest of the sandbox goes on.
#
# usage: mem.sh VKERNEL PROG CASE AS
#   PROG is asan_prog for the asan cases, the mem_oom guest program for
#   the others.  CASE: asan, asan_overflow, oom_cow, oom_adj, oom_self,
#   oom_kread.  AS: root (the guest is root), nobody (the program drops
#   to uid 65534), hostuser (vkernel run as an unprivileged host user).
set -u
vkernel=$1 prog=$2 case=$3 as=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-mem.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

run_as= nobody=
case $as in
hostuser)
	run_as="$(dirname "$0")/asuser.sh"
	if ! $run_as test -x "$vkernel" -a -x "$prog"; then
		echo "skip: $($run_as id -un) cannot reach $vkernel or $prog"
		exit 77
	fi
	;;
nobody)
	# Only root's guest may become another user.
	if [ "$(id -u)" != 0 ]; then
		echo "skip: an ordinary user's guest cannot become uid 65534"
		exit 77
	fi
	nobody=nobody
	;;
esac

failed=0
fail()
{
	echo "FAIL: mem $case ($as): $*" >&2
	echo "--- stdout ---"; head -n 20 "$tmp/out"
	echo "--- stderr ---"; head -n 40 "$tmp/err"
	failed=1
}

# vk ARG...: vkernel run ARG..., output in $tmp/out and $tmp/err, status
# in $status.
vk()
{
	$run_as "$vkernel" run "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
}

# oom STATUS MODE: mem_oom MODE under --mem 64M ends with STATUS and
# exactly one line of the OOM killer's.
oom()
{
	vk --mem 64M -- "$prog" "$2" $nobody
	[ "$status" -eq "$1" ] || fail "status $status, want $1"
	n=$(grep -c '^vkernel: out of memory: killed process [0-9]* (mem_oom-' \
	    "$tmp/err")
	[ "$n" -eq 1 ] || fail "$n lines of the OOM killer, want 1"
	if grep -v '^vkernel: out of memory: killed process' "$tmp/err" |
	    grep -q 'SIGSEGV\|SIGBUS'; then
		fail "a fault signal"
	fi
}

# LeakSanitizer stops the world with ptrace, which vkernel does not serve
# (as under strace or gdb): the guest looks for no leaks (vkernel, in a
# sanitizer build, keeps the options it was given).
asan_env="$(command -v env) ASAN_OPTIONS=detect_leaks=0"
case $case in
asan)
	vk -- $asan_env "$prog" $nobody
	[ "$status" -eq 0 ] || fail "status $status, want 0"
	grep -qx 'asan ok' "$tmp/out" || fail "no 'asan ok'"
	;;
asan_overflow)
	vk -- $asan_env "$prog" overflow $nobody
	[ "$status" -eq 1 ] || fail "status $status, want 1"
	grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' "$tmp/err" ||
	    fail "AddressSanitizer did not report the overflow"
	;;
oom_cow)
	oom 0 cow
	;;
oom_adj)
	oom 0 adj
	;;
oom_self)
	oom 137 self
	;;
oom_kread)
	oom 137 kread
	;;
*)
	echo "no case $case" >&2
	exit 2
	;;
esac
[ "$failed" -eq 0 ] && echo "ok: mem $case ($as)"
exit "$failed"
