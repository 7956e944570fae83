#!/bin/sh
# A guest cannot flood vkernel's stderr: the guest calls 100,000 syscall
# numbers no kernel serves (int_sysnr flood), and vkernel, which tells
# each unknown number once and rate-limits what a guest can make it say
# (10 lines, then 10 each 5 s, and a line that says how many it left
# out), must print 11 lines at most for each 5 s begun of the run (a slow
# host's run takes more than one), and one more.  Run as the invoking
# user and, when that is root, again with vkernel as an unprivileged
# host user (asuser.sh).
#
# usage: logflood.sh VKERNEL GUEST
set -u
vk=$1
guest=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-logflood.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
failed=0

run() {
	who=$1
	shift
	t0=$(date +%s)
	"$@" "$vk" run -- "$guest" flood >"$tmp/out" 2>"$tmp/err"
	st=$?
	max=$((11 * (($(date +%s) - t0) / 5 + 1) + 1))
	lines=$(wc -l <"$tmp/err")
	if [ "$st" != 0 ]; then
		echo "FAIL: $who: status $st" >&2
		failed=1
	fi
	if [ "$lines" -gt "$max" ]; then
		echo "FAIL: $who: $lines lines on stderr (at most $max)" >&2
		head -5 "$tmp/err" >&2
		failed=1
	fi
	echo "$who: status $st, $lines lines on stderr (at most $max)"
}

run "as $(id -un)"
if [ "$(id -u)" = 0 ]; then
	run "as an unprivileged user" "$(dirname "$0")/asuser.sh"
fi
exit $failed
