#!/bin/sh
# vkernel gives up its host powers before the guest runs: read from the
# host, a running vkernel's /proc/PID/status shows no capability but those
# hostfs acts with (CAP_DAC_OVERRIDE; with an rw bind also CAP_CHOWN,
# CAP_FOWNER and CAP_FSETID), an empty bounding set when it ran as root,
# no_new_privs, and its memory cannot be opened by another process of the
# same uid that lacks CAP_SYS_PTRACE.  Run as root and, with setpriv, as
# the unprivileged user 65534.
# Usage: selfsandbox.sh VKERNEL
vk=$1
fail=0
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null
}

# check AS_PREFIX WANT_CAPS WANT_BND BIND_OPTS: start vkernel, wait for its
# lock-down, check it, kill it.
check() {
	as=$1 want=$2 want_bnd=$3
	shift 3
	$as "$vk" run "$@" -- /bin/sleep 30 >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ "$(status_field $pid Seccomp)" != 2 ] && [ $i -lt 200 ] &&
	    kill -0 $pid 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	what="vkernel as uid $(status_field $pid Uid | cut -f1) $*"
	if [ "$(status_field $pid Seccomp)" != 2 ]; then
		echo "FAIL: $what: never locked down" >&2
		fail=1
		kill -KILL $pid 2>/dev/null
		wait $pid
		return
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
	kill -KILL $pid
	wait $pid
}

if [ "$(id -u)" = 0 ]; then
	check "" 0000000000000002 0000000000000000
	check "" 000000000000001b 0000000000000000 --bind "$tmp:/mnt:rw"
	check "" 0000000000000002 0000000000000000 --bind "$tmp:/mnt:ro"
	check "setpriv --reuid=65534 --regid=65534 --clear-groups" \
	    0000000000000000 ""
else
	check "" 0000000000000000 ""
fi
[ $fail = 0 ] && echo "ok: vkernel runs without its start-up powers"
exit $fail
