#!/bin/bash
# inotify as programs use it inside vkernel: coreutils' tail -F follows a
# log on a tmpfs through a rotation (a new file under the old name), with
# a poll interval long enough that only inotify can keep it in time; as
# guest root, and with vkernel run by an unprivileged host user.
# Usage: inotify.sh VKERNEL CASE
set -u
vk=$1
case_=$2
asuser="$(dirname "$0")/asuser.sh"

fail() {
	echo "FAIL: $case_: $*" >&2
	exit 1
}

follow='cd /dev/shm && rm -f log log.1 out && echo one > log &&
	{ tail -F -s 30 log > out 2>/dev/null & t=$!; } &&
	w() { for i in $(seq 100); do grep -q "$1" out && return 0; sleep 0.05; done; return 1; } &&
	w one && echo two >> log && w two && mv log log.1 &&
	echo three > log && w three && echo four >> log && w four;
	kill $t; wait $t 2>/dev/null; cat out; rm -f log log.1 out'
want='one
two
three
four'

case $case_ in
tail_F)
	got=$(timeout 60 "$vk" run -- bash -c "$follow" 2>&1) || fail "status $?: $got"
	;;
tail_F_user)
	got=$(timeout 60 "$asuser" "$vk" run -- bash -c "$follow" 2>&1) || fail "status $?: $got"
	;;
*)
	fail "unknown case"
	;;
esac
[ "$got" = "$want" ] || fail "got:
$got"
exit 0
