#!/bin/bash
# util-linux's mount, umount and df inside vkernel: a tmpfs of the size
# asked for, a bind that shows the same files, both gone after umount,
# a bind made read-only alone and a mount moved with its submount,
# the mqueue file system, unshare(1)'s namespace,
# /proc/self/mounts following along; a guest user (and vkernel run by an
# unprivileged host user) may not mount; the host's mounts never change.
# Usage: mount.sh VKERNEL CASE
set -u
vk=$1
case_=$2
asuser="$(dirname "$0")/asuser.sh"

fail() {
	echo "FAIL: $case_: $*" >&2
	exit 1
}

command -v mount >/dev/null || { echo "skip: no mount (util-linux)"; exit 77; }

script='mkdir -p /mnt/vka /mnt/vkb &&
	mount -t tmpfs -o size=1m,mode=0750 none /mnt/vka &&
	df -k /mnt/vka | awk "NR == 2 { print \$1, \$2, \$6 }" &&
	stat -c %a /mnt/vka &&
	echo hello > /mnt/vka/f &&
	mount --bind /mnt/vka /mnt/vkb && cat /mnt/vkb/f &&
	grep -c "^none /mnt/vk[ab] tmpfs rw" /proc/self/mounts &&
	{ umount /mnt/vka 2>/dev/null 3</mnt/vka/f || echo busy; } &&
	umount /mnt/vkb && umount /mnt/vka &&
	ls /mnt/vka | wc -l && { grep -c /mnt/vk /proc/self/mounts || :; }'
want='none 1024 /mnt/vka
750
hello
2
busy
0
0'
# mount(2) itself, as util-linux's mount refuses a user before calling it.
denied='perl -e '\''my ($s, $t, $f) = ("none", "/tmp", "tmpfs");
	my $r = syscall(165, $s, $t, $f, 0, 0);
	print $r == -1 ? $! + 0 : "mounted", "\n"'\'' &&
	{ grep -c " /tmp tmpfs" /proc/self/mounts || :; }'
want_denied='1
0'

# A read-only bind and a move, as util-linux's mount does them.
robind='mkdir -p /mnt/vka /mnt/vkb /mnt/vkc && echo one > /mnt/vka/f &&
	mount --bind /mnt/vka /mnt/vkb && mount -o remount,bind,ro /mnt/vkb &&
	{ echo two 2>/dev/null > /mnt/vkb/f || echo erofs; } &&
	echo three > /mnt/vka/f && cat /mnt/vkb/f &&
	awk "\$5 == \"/mnt/vkb\" { print substr(\$6, 1, 2) }" /proc/self/mountinfo &&
	findmnt -n -o OPTIONS -T /mnt/vka | cut -c1-2 &&
	mount -o remount,bind,rw /mnt/vkb && echo four > /mnt/vkb/f &&
	cat /mnt/vka/f && umount /mnt/vkb &&
	mount -t tmpfs none /mnt/vka/ && mkdir /mnt/vka/sub &&
	mount -t tmpfs none /mnt/vka/sub && touch /mnt/vka/sub/x &&
	mount --move /mnt/vka /mnt/vkc && ls /mnt/vkc/sub &&
	{ mount --move /mnt/vkc /mnt/vkc/sub 2>/dev/null || echo eloop; } &&
	grep -c " /mnt/vkc" /proc/self/mounts &&
	umount /mnt/vkc/sub && umount /mnt/vkc'
want_robind='erofs
three
ro
rw
four
x
eloop
2'

# The mqueue file system: /dev/mqueue at boot, a queue mq_open made
# (perl's syscall: mq_open 240, mq_timedsend 242) read as its line, a
# second mount with the same queues, creat and rm making and removing
# them; a user makes and removes its own but may not mount.
mqueue='ls -ld /dev/mqueue | cut -c1-10 &&
	grep -c "^mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec" /proc/self/mounts &&
	perl -e '\''my ($n, $m) = ("vkq", "hello");
		my $fd = syscall(240, $n, 66, 0600, 0);
		syscall(242, $fd, $m, 5, 1, 0) == 0 or die "$!"'\'' &&
	ls /dev/mqueue && cat /dev/mqueue/vkq &&
	mkdir -p /mnt/vkm && mount -t mqueue none /mnt/vkm && ls /mnt/vkm &&
	touch /mnt/vkm/made && ls /dev/mqueue | tr "\n" " " && echo &&
	rm /dev/mqueue/vkq /mnt/vkm/made && ls /mnt/vkm | wc -l &&
	umount /mnt/vkm'
want_mqueue='drwxrwxrwt
1
vkq
QSIZE:5          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     
vkq
made vkq 
0'
mqueue_user='touch /dev/mqueue/mine &&
	[ "$(stat -c %u /dev/mqueue/mine)" = "$(id -u)" ] && echo owned &&
	cut -c1-6 /dev/mqueue/mine && rm /dev/mqueue/mine && ls /dev/mqueue &&
	{ mount -t mqueue none /tmp 2>/dev/null || echo denied; }'
want_mqueue_user='owned
QSIZE:
denied'

# unshare(1): a mount made in its namespace is not seen outside it;
# the other namespaces are not there (EINVAL); a user may not (EPERM).
unshare_='mkdir -p /mnt/vkn && unshare -m sh -c "mount -t tmpfs none /mnt/vkn &&
	touch /mnt/vkn/in && ls /mnt/vkn && grep -c /mnt/vkn /proc/self/mounts" &&
	ls /mnt/vkn | wc -l && { grep -c /mnt/vkn /proc/self/mounts || :; } &&
	{ unshare -u true 2>&1 | grep -c "Invalid argument"; }'
want_unshare='in
1
0
0
1'
unshare_user='unshare -m true 2>&1 | grep -c "Operation not permitted"'

# A script as guest root, which it is only when vkernel runs as root.
as_root() {
	[ "$(id -u)" = 0 ] || { echo "skip: guest root needs vkernel run as root"; exit 77; }
	got=$("$vk" run -- sh -c "$1" 2>&1) || fail "status $?: $got"
	[ "$got" = "$2" ] || fail "got:
$got"
}

# A script as guest user 1000, then with vkernel run by a host user.
as_users() {
	got=$("$vk" run -- perl -e '$( = $) = "1000 1000"; $< = $> = 1000;
		exec @ARGV' sh -c "$1" 2>&1)
	[ "$got" = "$2" ] || fail "got: $got"
	got=$("$asuser" "$vk" run -- sh -c "$1" 2>&1)
	[ "$got" = "$2" ] || fail "as a host user, got: $got"
}

before=$(cat /proc/self/mountinfo)
case $case_ in
tmpfs_bind)
	as_root "$script" "$want"
	;;
ro_bind_move)
	as_root "$robind" "$want_robind"
	;;
mqueue)
	as_root "$mqueue" "$want_mqueue"
	;;
mqueue_user)
	as_users "$mqueue_user" "$want_mqueue_user"
	;;
unshare)
	as_root "$unshare_" "$want_unshare"
	;;
unshare_user)
	as_users "$unshare_user" 1
	;;
user)
	got=$("$vk" run -- perl -e '$( = $) = "1000 1000"; $< = $> = 1000;
		exec @ARGV' sh -c "$denied" 2>&1)
	[ "$got" = "$want_denied" ] || fail "got: $got"
	;;
host_user)
	got=$("$asuser" "$vk" run -- sh -c "$denied" 2>&1)
	[ "$got" = "$want_denied" ] || fail "got: $got"
	;;
*)
	fail "unknown case"
	;;
esac
[ "$before" = "$(cat /proc/self/mountinfo)" ] || fail "the host's mounts changed"
exit 0
