#!/bin/sh
# A guest's chain of directories deeper than vkernel's stack could take in
# recursion (tests/guest/fs_deep.c does the making and the checks): vkernel
# must end with the guest's status 0, killed by no signal and with no
# sanitizer report or panic on stderr, run by root and by an unprivileged
# host user alike.
#
#   overlay      300000 levels in the overlay's /tmp, made by guest uid
#                65534 and left for the exit to free;
#   bind_copyup  a chain made on a host directory through a read-write
#                bind, then written to at the bottom through the overlay,
#                whose lower layer shows it: the copy-up goes through every
#                level, and the host directory stays as the bind made it.
#
# usage: deep.sh VKERNEL FS_DEEP CASE
# Exits 0 if the case passes, 1 if it fails (explained on stderr), 2 on a
# usage error.

set -u
[ $# -eq 3 ] || { echo "usage: deep.sh VKERNEL FS_DEEP CASE" >&2; exit 2; }
vkernel=$1
prog=$2
current=$3
failed=0
tmp=$(mktemp -d /tmp/vk-deep.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

fail()
{
	echo "FAIL: deep $current: $*" >&2
	failed=1
}

# run [PREFIX...] -- ARGS...: one vkernel run, which must end cleanly.
run()
{
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] ||
	    grep -Eqi 'sanitizer|runtime error|panic|assert' "$tmp/err"; then
		fail "status $st: $*"
		cat "$tmp/out" "$tmp/err" >&2
	fi
}

# The host users vkernel runs as: this one, and when it is root an
# unprivileged one as well (asuser.sh); an ordinary user is that already.
users="self"
[ "$(id -u)" -eq 0 ] && users="self nobody"

as_user()
{
	if [ "$1" = nobody ]; then
		echo "$(dirname "$0")/asuser.sh"
	fi
}

case_overlay()
{
	for u in $users; do
		run $(as_user "$u") "$vkernel" run -- "$prog" -u 300000 keep
	done
}

case_bind_copyup()
{
	# Every level of a host chain holds a host descriptor in vkernel.
	depth=$(ulimit -Hn)
	case $depth in unlimited) depth=15000 ;; esac
	depth=$((depth - 2000))
	[ "$depth" -gt 15000 ] && depth=15000
	if [ "$depth" -lt 1000 ]; then
		echo "skip: deep $current: descriptor limit too low"
		exit 77
	fi
	for u in $users; do
		rm -rf "$tmp/h"
		mkdir -m 1777 "$tmp/h"
		run $(as_user "$u") "$vkernel" run --bind "$tmp/h:/mnt:rw" -- \
		    "$prog" "$depth" keep /mnt/top
		run $(as_user "$u") "$vkernel" run -- "$prog" "$depth" walk \
		    "$tmp/h/top"
		n=$(find "$tmp/h" -type d | wc -l)
		[ "$n" -eq $((depth + 2)) ] ||
		    fail "$u: $n directories on the host, want $((depth + 2))"
		[ -z "$(find "$tmp/h" ! -type d)" ] ||
		    fail "$u: the overlay's writes reached the host"
	done
}

case $current in
overlay) case_overlay ;;
bind_copyup) case_bind_copyup ;;
*) echo "deep.sh: unknown case $current" >&2; exit 2 ;;
esac
exit $failed
