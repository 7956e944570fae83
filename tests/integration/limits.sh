#!/bin/sh
# The sandbox's limits from the command line, each at its edge: a clear
# line on stderr or the errno Linux gives, the rest of the sandbox going
# on, and each case done in seconds.
#
# usage: limits.sh VKERNEL BUSYBOX LIMIT_FDS CASE [user]
#   LIMIT_FDS is the limit_fds guest program.  With "user" vkernel runs
#   as an unprivileged host user (asuser.sh).  CASE: timeout,
#   cpu_time, cpu_time_kill, fds, fds_nobody, pids, disk, bad_values
#   (which also wants each option in 'vkernel run --help'); and sized
#   file systems as df and dd see them: tmpfs_size, tmpfs_size_nobody
#   (the guest drops to uid 65534 first), tmpfs_inodes, overlay_size,
#   disk_size (--disk below a size), mem_full (none but --mem),
#   size_bad_values.
set -u
vkernel=$1 busybox=$2 limit_fds=$3 case=$4 as=${5:-root}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vk-limits.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

run_as=
if [ "$as" = user ]; then
	run_as="$(dirname "$0")/asuser.sh"
	if ! $run_as test -x "$vkernel"; then
		echo "skip: $($run_as id -un) cannot reach $vkernel"
		exit 77
	fi
fi

failed=0
fail()
{
	echo "FAIL: limits $case ($as): $*" >&2
	failed=1
}

# vk ARG...: vkernel run ARG..., output in $tmp/out and $tmp/err, status
# in $status and the wall time in whole seconds in $secs.
vk()
{
	t0=$(date +%s%N)
	$run_as "$vkernel" run "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
	secs=$((($(date +%s%N) - t0) / 1000000000))
}

show()
{
	echo "--- stdout ---"; head -n 20 "$tmp/out"
	echo "--- stderr ---"; head -n 20 "$tmp/err"
}

# The guest script that fills DIR with dd and shows df's figures (1K
# blocks: size, used, available) before, when full and after rm.  The
# file is new, in a new directory: the overlay's /tmp shows the host's
# files, and writing one would copy it up first.
fill_script()
{
	echo "df_k() { df -k \"\$1\" | tail -n 1 | tr -s ' ' | cut -d' ' -f2-4; }
	d=$1/vk-fs-size.\$\$
	mkdir -m 1777 \$d
	df_k \$d
	${2:-} dd if=/dev/zero of=\$d/f bs=64k count=1000 2>&1 |
	    grep -c 'No space left on device'
	echo size \$(stat -c %s \$d/f)
	df_k \$d
	rm -r \$d
	df_k $1"
}

# What fill_script prints on a file system of 1024 KiB of which what the
# guest found in use at the start stays (vkernel's own /etc/hosts and
# /etc/hostname in the overlay's upper layer, which --disk counts too):
# fails unless that is a few blocks.
filled_ok()
{
	used=$(head -n 1 "$tmp/out" | cut -d' ' -f2)
	[ -n "$used" ] && [ "$used" -le 16 ] || return 1
	free=$((1024 - used))
	[ "$(cat "$tmp/out")" = "1024 $used $free
1
size $((free * 1024))
1024 1024 0
1024 $used $free" ]
}

# Runs a command as uid and gid 65534, from a guest root.
nobody="python3 -c 'import os, sys; os.setgroups([]);
os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534);
os.execvp(sys.argv[1], sys.argv[1:])'"

case $case in
timeout)
	# A spinner that ignores SIGTERM: SIGKILL 2 s later, status 124.
	vk --timeout 1 -- "$busybox" sh -c 'trap "" TERM; while :; do :; done'
	[ "$status" -eq 124 ] || fail "status $status, want 124"
	[ "$secs" -le 5 ] || fail "took $secs s, want about 3"
	grep -q 'timeout ran out.*SIGTERM, then SIGKILL' "$tmp/err" ||
	    fail "no line saying --timeout ran out"
	# A guest that ends on SIGTERM is done at once, all its processes.
	vk --timeout 1 -- "$busybox" sh -c "$busybox sleep 100 &
	    $busybox sleep 100"
	[ "$status" -eq 124 ] || fail "sleep: status $status, want 124"
	[ "$secs" -le 3 ] || fail "sleep took $secs s, want about 1"
	# A guest done in time keeps its own status.
	vk --timeout 5 -- "$busybox" sh -c 'exit 3'
	[ "$status" -eq 3 ] || fail "exit 3 in time gives $status"
	;;
cpu_time)
	# SIGXCPU to every process, whose default action ends the spinner.
	vk --cpu-time 1 -- "$busybox" sh -c 'while :; do :; done'
	[ "$status" -eq 152 ] || fail "status $status, want 152 (SIGXCPU)"
	grep -q 'cpu-time ran out' "$tmp/err" ||
	    fail "no line saying --cpu-time ran out"
	# Time spent asleep is no CPU time.
	vk --cpu-time 1 -- "$busybox" sleep 2
	[ "$status" -eq 0 ] || fail "sleep 2 under --cpu-time 1: $status"
	;;
cpu_time_kill)
	# Two spinners ignoring SIGXCPU share the sandbox's CPU second,
	# then SIGKILL comes a CPU second later.
	vk --cpu-time 1 -- "$busybox" sh -c 'trap "" XCPU
	    (while :; do :; done) & while :; do :; done'
	[ "$status" -eq 137 ] || fail "status $status, want 137 (SIGKILL)"
	grep -q 'cpu-time ran out.*SIGXCPU, then SIGKILL' "$tmp/err" ||
	    fail "no line saying --cpu-time ran out with SIGKILL"
	;;
fds)
	vk --fds 64 -- "$limit_fds" 64
	[ "$status" -eq 0 ] || fail "limit_fds 64 as root: status $status"
	;;
fds_nobody)
	vk --fds 64 -- "$limit_fds" 64 nobody
	[ "$status" -eq 0 ] || fail "limit_fds 64 as nobody: status $status"
	;;
pids)
	# A fork bomb of sleepers stops at EAGAIN below 32 tasks, and once
	# they are gone forks work again.
	vk --pids 32 -- "$busybox" sh -c "(i=0; while [ \$i -lt 100 ]; do
	    $busybox sleep 30 & i=\$((i+1)); echo \$i >/tmp/n; done)
	    echo forked \$($busybox cat /tmp/n); kill -9 -1
	    $busybox sleep 0.2; $busybox echo alive"
	n=$(sed -n 's/^forked //p' "$tmp/out")
	[ -n "$n" ] && [ "$n" -ge 25 ] && [ "$n" -le 31 ] ||
	    fail "forked '$n' sleepers, want below 32"
	grep -qi 'resource temporarily unavailable' "$tmp/err" ||
	    fail "the shell's fork did not fail with EAGAIN"
	grep -qx alive "$tmp/out" || fail "no fork after the bomb"
	;;
disk)
	# ENOSPC past 8 MiB, statfs shows it, and deleting frees it.
	vk --disk 8M -- "$busybox" sh -c "
	    $busybox dd if=/dev/zero of=/tmp/a bs=1M count=20 2>&1 |
	    $busybox grep -q 'No space left' && echo dd \$?; $busybox stat -f -c '%b %S' /tmp
	    $busybox dd if=/dev/zero of=/dev/shm/b bs=4k count=1 2>/dev/null
	    echo shm \$?; $busybox rm /tmp/a
	    $busybox dd if=/dev/zero of=/dev/shm/b bs=1M count=6 2>/dev/null
	    echo again \$?"
	[ "$(cat "$tmp/out")" = "dd 0
2048 4096
shm 1
again 0" ] || fail "want dd 0 (ENOSPC), 2048 blocks, shm 1, again 0"
	;;
bad_values)
	$run_as "$vkernel" run --help >"$tmp/help"
	for opt in --pids --fds --timeout --cpu-time --disk; do
		grep -q -- "^  $opt " "$tmp/help" ||
		    fail "'vkernel run --help' does not tell $opt"
		for v in 0 -1 abc 99999999999999999999 1e99; do
			vk "$opt" "$v" -- "$busybox" true
			[ "$status" -eq 2 ] ||
			    fail "$opt $v: status $status, want 2"
			[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
			    grep -q "invalid $opt" "$tmp/err" ||
			    fail "$opt $v: '$(cat "$tmp/err")'"
		done
	done
	;;
tmpfs_size|tmpfs_size_nobody)
	drop=
	if [ "$case" = tmpfs_size_nobody ]; then
		if [ "$($run_as id -u)" != 0 ]; then
			echo "skip: the guest is no root that could drop"
			exit 77
		fi
		drop=$nobody
	fi
	vk --tmpfs /mnt:size=1M -- /bin/sh -c "$(fill_script /mnt "$drop")"
	[ "$status" -eq 0 ] || fail "status $status"
	[ "$(cat "$tmp/out")" = "1024 0 1024
1
size 1048576
1024 1024 0
1024 0 1024" ] || fail "want 1024 blocks free, dd ENOSPC at 1 MiB, none free, all free again"
	;;
tmpfs_inodes)
	# Of 8 inodes the root takes one: 7 files, then ENOSPC.
	vk --tmpfs /mnt:size=1M,nr_inodes=8 -- /bin/sh -c '
	    df -i /mnt | tail -n 1 | tr -s " " | cut -d" " -f2-4
	    for i in 1 2 3 4 5 6 7; do : > /mnt/f$i || echo no $i; done
	    touch /mnt/f8 2>&1 | grep -c "No space left on device"
	    mkdir /mnt/d 2>&1 | grep -c "No space left on device"
	    df -i /mnt | tail -n 1 | tr -s " " | cut -d" " -f2-4
	    rm /mnt/f1 && mkdir /mnt/d && echo made'
	[ "$(cat "$tmp/out")" = "8 1 7
1
1
8 8 0
made" ] || fail "want 8 inodes, 7 files, then ENOSPC for a file and a directory"
	;;
overlay_size)
	vk --overlay-size 1M -- /bin/sh -c "$(fill_script /tmp)"
	[ "$status" -eq 0 ] || fail "status $status"
	filled_ok || fail "want the overlay's upper layer full at 1 MiB"
	vk --overlay-size 1M -- df -k /
	grep -q '^overlay  *1024 ' "$tmp/out" || fail "df / is not 1024 blocks"
	;;
disk_size)
	# --disk, the less, is what df says and where dd stops.
	vk --disk 1M --tmpfs /mnt:size=4M -- /bin/sh -c "$(fill_script /mnt)"
	filled_ok || fail "want --disk's 1 MiB as the size"
	;;
mem_full)
	# No size of its own: full when --mem is, which is ENOSPC too.  dd's
	# message is read on the host: a grep beside dd inside could find no
	# memory left for itself.
	for dir in /mnt /tmp; do
		vk --mem 32M --tmpfs /mnt -- /bin/sh -c "
		    dd if=/dev/zero of=$dir/vk-fs-size.\$\$ bs=64k 2>&1"
		grep -q 'No space left on device' "$tmp/out" ||
		    fail "$dir: dd said '$(cat "$tmp/out")'"
	done
	;;
size_bad_values)
	$run_as "$vkernel" run --help >"$tmp/help"
	for opt in "--tmpfs PATH\[:size=SIZE\]" "--overlay-size SIZE"; do
		grep -q -- "^  $opt" "$tmp/help" ||
		    fail "'vkernel run --help' does not tell $opt"
	done
	for v in abc -1 2T 1e99 99999999999999999999 "" 5K% 99999999%; do
		for opt in --tmpfs --overlay-size; do
			if [ "$opt" = --tmpfs ]; then
				vk --tmpfs "/mnt:size=$v" -- /bin/true
			else
				vk --overlay-size "$v" -- /bin/true
			fi
			[ "$status" -eq 2 ] ||
			    fail "$opt size '$v': status $status, want 2"
			[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
			    grep -q -- "$opt" "$tmp/err" ||
			    fail "$opt size '$v': '$(cat "$tmp/err")'"
		done
	done
	for v in /mnt:nr_inodes=x /mnt:nr_inodes=5G /mnt:mode=1777 \
	    /mnt:size=1M, mnt:size=1M; do
		vk --tmpfs "$v" -- /bin/true
		[ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		    fail "--tmpfs $v: status $status, '$(cat "$tmp/err")'"
	done
	;;
*)
	echo "limits.sh: no case '$case'" >&2
	exit 2
	;;
esac
[ "$failed" -eq 0 ] || { show; exit 1; }
echo "ok: limits $case ($as)"
