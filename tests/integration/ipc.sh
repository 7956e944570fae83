#!/bin/bash
# System V IPC through util-linux's ipcmk, ipcs and ipcrm inside vkernel:
# what each makes shows in ipcs (which reads /proc/sysvipc) with the ids
# and fields Linux gives a fresh namespace, ipcrm removes it, the limits
# in /proc/sys/kernel and POSIX message queues' in /proc/sys/fs/mqueue
# are guest root's to change and no one else's, and nothing reaches the
# host's own IPC objects.  Usage: ipc.sh VKERNEL CASE
set -u
vk=$1
case_=$2
asuser="$(dirname "$0")/asuser.sh"

fail() {
	echo "FAIL: $case_: $*" >&2
	exit 1
}

command -v ipcmk >/dev/null || { echo "skip: no ipcmk (util-linux)"; exit 77; }

# The sandbox's objects, made and shown by the tools inside it.
make_show='ipcmk -M 8192 -p 0640 && ipcmk -S 3 && ipcmk -Q &&
	ipcs -m | awk "NR > 3 && NF { print \$2, \$4, \$5, \$6 }" &&
	ipcs -s | awk "NR > 3 && NF { print \$2, \$4, \$5 }" &&
	ipcs -q | awk "NR > 3 && NF { print \$2, \$4, \$5, \$6 }" &&
	ipcs -s -i 0 | grep -c "^[0-2]  *0  *0  *0  *0" &&
	ipcrm -a && { ipcs | grep -c "^0x" || true; }'
want_show='Shared memory id: 0
Semaphore id: 0
Message queue id: 0
0 640 8192 0
0 644 3
0 644 0 0
3
0'

case $case_ in
ipcs)
	before=$(cat /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg 2>/dev/null)
	got=$("$vk" run -- sh -c "$make_show" 2>&1) || fail "status $?: $got"
	[ "$got" = "$want_show" ] || fail "got:
$got"
	after=$(cat /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg 2>/dev/null)
	[ "$before" = "$after" ] || fail "the host's IPC objects changed"
	;;
ipcs_user)
	# vkernel run by an unprivileged host user: the guest is that user.
	got=$("$asuser" "$vk" run -- sh -c "$make_show" 2>&1) || fail "status $?: $got"
	[ "$got" = "$want_show" ] || fail "got:
$got"
	;;
limits)
	# The guest runs as vkernel's caller: root only when that is root.
	[ "$(id -u)" = 0 ] || { echo "skip: guest root needs vkernel run as root"; exit 77; }
	got=$("$vk" run -- sh -c 'echo 100 > /proc/sys/kernel/shmmni &&
		echo "250 32000 32 128" > /proc/sys/kernel/sem &&
		echo 4096 > /proc/sys/kernel/msgmnb &&
		(echo 40000 > /proc/sys/kernel/msgmni) 2>/dev/null || echo refused &&
		ipcs -l | grep -E "^max number of segments|^max number of arrays|^default max size of queue" &&
		cat /proc/sys/kernel/sem' 2>&1) || fail "status $?: $got"
	want='refused
default max size of queue (bytes) = 4096
max number of segments = 100
max number of arrays = 128
250	32000	32	128'
	[ "$got" = "$want" ] || fail "got:
$got"
	# Still the host's own values.
	[ "$(cat /proc/sys/kernel/shmmni)" != 100 ] || fail "host shmmni changed"
	;;
limits_user)
	# An unprivileged guest may read the limits but not write them.
	got=$("$asuser" "$vk" run -- sh -c 'cat /proc/sys/kernel/msgmax;
		echo 1 > /proc/sys/kernel/msgmax || echo refused;
		cat /proc/sys/kernel/msgmax' 2>/dev/null)
	[ "$got" = "8192
refused
8192" ] || fail "got:
$got"
	;;
mq_limits)
	# The guest runs as vkernel's caller: root only when that is root.
	[ "$(id -u)" = 0 ] || { echo "skip: guest root needs vkernel run as root"; exit 77; }
	host=$(cat /proc/sys/fs/mqueue/msg_max)
	got=$("$vk" run -- sh -c 'cd /proc/sys/fs/mqueue && cat msg_max \
		msgsize_max queues_max msg_default msgsize_default &&
		echo 20 > msg_max && echo 4096 > msgsize_default &&
		{ (echo 0 > msg_max) 2>/dev/null || echo refused; } &&
		{ (echo 127 > msgsize_max) 2>/dev/null || echo refused; } &&
		cat msg_max msgsize_default' 2>&1) || fail "status $?: $got"
	want='10
8192
256
10
8192
refused
refused
20
4096'
	[ "$got" = "$want" ] || fail "got:
$got"
	[ "$(cat /proc/sys/fs/mqueue/msg_max)" = "$host" ] ||
		fail "host msg_max changed"
	;;
mq_limits_user)
	got=$("$asuser" "$vk" run -- sh -c 'cd /proc/sys/fs/mqueue;
		echo 1 > queues_max || echo refused; cat queues_max' 2>/dev/null)
	[ "$got" = "refused
256" ] || fail "got:
$got"
	;;
*)
	fail "unknown case"
	;;
esac
echo "ok: $case_"
