#!/bin/sh
# vkernel gives up its host powers before the guest runs: read from the
# host, a running vkernel's /proc/PID/status shows no capability but those
# hostfs acts with (CAP_DAC_OVERRIDE; with an rw bind also CAP_CHOWN,
# CAP_FOWNER and CAP_FSETID; and as root, for its stubs of another uid,
# CAP_KILL and CAP_SYS_NICE, held in its own user namespace only), an
# empty bounding set when it ran as root, no_new_privs, and its memory
# cannot be opened by another process of the same uid that lacks
# CAP_SYS_PTRACE.  It runs in user, pid and mount namespaces of its own
# (the command's child, pid 1 of its pid namespace, its ids mapped to
# themselves), its root is empty, and its stubs are in its pid namespace,
# never host uid 0.  With --userns=off it is the command itself, in the
# host's namespaces.  Run as root and, with setpriv, as the unprivileged
# user 65534.
# Usage: selfsandbox.sh VKERNEL
vk=$1
# The unprivileged host user, as the other tests run it.
asuser=$(cd "$(dirname "$0")/../integration" && pwd)/asuser.sh
fail=0
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null
}

# vk_child PID: the vkernel PID started (the prefix may run other
# programs on its way to exec vkernel).
vk_child() {
	for c in $(cat /proc/$1/task/$1/children 2>/dev/null); do
		if [ "$(cat /proc/$c/comm 2>/dev/null)" = vkernel ]; then
			echo $c
			return 0
		fi
	done
	return 1
}

# check AS_PREFIX WANT_CAPS WANT_BND BIND_OPTS: start vkernel, wait for its
# lock-down, check it, kill it.
check() {
	as=$1 want=$2 want_bnd=$3
	shift 3
	$as "$vk" run "$@" -- /bin/sleep 30 >/dev/null 2>&1 &
	cmd=$!
	pid=$cmd
	i=0
	# vkernel is the command's child unless --userns=off.
	while [ "$userns" = 1 ] && [ $i -lt 200 ] && ! pid=$(vk_child $cmd); do
		sleep 0.05
		i=$((i + 1))
	done
	while [ "$(status_field $pid Seccomp)" != 2 ] && [ $i -lt 200 ] &&
	    kill -0 $pid 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	what="vkernel as uid $(status_field $pid Uid | cut -f1) $*"
	if [ "$(status_field $pid Seccomp)" != 2 ]; then
		echo "FAIL: $what: never locked down" >&2
		fail=1
		kill -KILL $cmd 2>/dev/null
		wait $cmd
		return
	fi
	if [ "$userns" = 1 ]; then
		check_ns
	elif [ "$(readlink /proc/$pid/ns/user)" != \
	    "$(readlink /proc/self/ns/user)" ]; then
		echo "FAIL: $what: a user namespace with --userns=off" >&2
		fail=1
	fi
	for f in CapEff CapPrm; do
		v=$(status_field $pid $f)
		if [ "$v" != "$want" ]; then
			echo "FAIL: $what: $f $v, want $want" >&2
			fail=1
		fi
	done
	for f in CapInh CapAmb; do
		v=$(status_field $pid $f)
		if [ "$v" != 0000000000000000 ]; then
			echo "FAIL: $what: $f $v, want none" >&2
			fail=1
		fi
	done
	v=$(status_field $pid CapBnd)
	if [ -n "$want_bnd" ] && [ "$v" != "$want_bnd" ]; then
		echo "FAIL: $what: CapBnd $v, want $want_bnd" >&2
		fail=1
	fi
	if [ "$(status_field $pid NoNewPrivs)" != 1 ]; then
		echo "FAIL: $what: no no_new_privs" >&2
		fail=1
	fi
	# A process of the same uid without capabilities (a root one gets
	# none from execve with empty bounding and inheritable sets).
	reader=${as:-setpriv --bounding-set=-all --inh-caps=-all}
	if $reader sh -c "exec 3</proc/$pid/mem" 2>/dev/null; then
		echo "FAIL: $what: its /proc/PID/mem opens" >&2
		fail=1
	fi
	kill -KILL $cmd
	wait $cmd
}

# Its namespaces, maps and root, and its stubs', read from the host.
check_ns() {
	for ns in user mnt pid; do
		if [ "$(readlink /proc/$pid/ns/$ns)" = \
		    "$(readlink /proc/self/ns/$ns)" ]; then
			echo "FAIL: $what: in the host's $ns namespace" >&2
			fail=1
		fi
	done
	if [ "$(status_field $pid NSpid)" != "$pid	1" ]; then
		echo "FAIL: $what: NSpid $(status_field $pid NSpid)" >&2
		fail=1
	fi
	uid=$(status_field $pid Uid | cut -f1)
	want_map="$uid $uid 1"
	[ "$uid" = 0 ] && want_map="0 0 4294967295"
	if [ "$(echo $(cat /proc/$pid/uid_map))" != "$want_map" ]; then
		echo "FAIL: $what: uid_map $(cat /proc/$pid/uid_map)" >&2
		fail=1
	fi
	if [ "$(ls -A /proc/$pid/root/)" != "$want_root" ] ||
	    [ -e /proc/$pid/root/etc ]; then
		echo "FAIL: $what: its root is not empty:" \
		    "$(ls -A /proc/$pid/root/)" >&2
		fail=1
	fi
	stubs=$(cat /proc/$pid/task/$pid/children)
	if [ -z "$stubs" ]; then
		echo "FAIL: $what: no stub" >&2
		fail=1
	fi
	for s in $stubs; do
		if [ "$(status_field $s Uid | cut -f1)" = 0 ]; then
			echo "FAIL: $what: stub $s is host uid 0" >&2
			fail=1
		fi
		if [ "$(status_field $s NSpid | wc -w)" != 2 ]; then
			echo "FAIL: $what: stub $s NSpid" \
			    "$(status_field $s NSpid)" >&2
			fail=1
		fi
	done
}

# A sanitizer build's runtime reads /proc/self: its root holds /proc.
want_root=
"$vk" policy | grep -q 'sanitizer runtime' && want_root=proc
if [ "$(id -u)" = 0 ]; then
	userns=1
	check "" 0000000000800022 0000000000000000
	check "" 000000000080003b 0000000000000000 --bind "$tmp:/mnt:rw"
	check "" 0000000000800022 0000000000000000 --bind "$tmp:/mnt:ro"
	check "$asuser" \
	    0000000000000000 ""
	userns=0
	check "" 0000000000000002 0000000000000000 --userns=off
	check "" 000000000000001b 0000000000000000 --userns=off \
	    --bind "$tmp:/mnt:rw"
	check "$asuser" \
	    0000000000000000 "" --userns=off
else
	userns=1
	check "" 0000000000000000 ""
fi
[ $fail = 0 ] && echo "ok: vkernel runs without its start-up powers"
exit $fail
