#!/bin/sh
# A model of a taken-over vkernel: with the test hook, the vkernel, locked
# down with its real filter in its real sandbox, uses the calls the filter
# leaves it against host objects: openat2 with O_CREAT of a set-uid file
# by absolute path and by ".." out of its root layer's descriptor,
# mkdirat, symlinkat, unlinkat and fchownat by absolute path,
# sched_setaffinity of a host process of its own uid, and its /proc/PID
# for pidfd_send_signal (kill and ptrace beyond its eleven requests die of
# SIGSYS: lockdown.sh).  Checked from the host: nothing appeared in or vanished
# from the directory, and the host process lives.  As root and as user
# 65534, each with a host process of its uid.
# Usage: takeover.sh VKERNEL GUEST
vk=$1
# The unprivileged host user, as the other tests run it.
asuser=$(cd "$(dirname "$0")/../integration" && pwd)/asuser.sh
guest=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root" "$tmp/host"
cp "$guest" "$tmp/root/hello"
touch "$tmp/host/victim"
chmod -R a+rwX "$tmp"
chmod 755 "$tmp"

takeover() {
	as=$1
	what="vkernel as ${as:-root}"
	$as sleep 60 &
	victim=$!
	out=$(VKERNEL_TEST_TAKEOVER=$victim:$tmp/host $as "$vk" run \
	    --root "$tmp/root" -- /hello 2>&1)
	for call in "openat2 abs" "openat2 up" "mkdirat abs" "symlinkat abs" \
	    "unlinkat abs" "fchownat abs" "sched_setaffinity pid" \
	    "open /proc/pid"; do
		line=$(echo "$out" | grep "^vkernel-test: $call: ")
		case $line in
		"") echo "FAIL: $what: $call: no outcome: $out" >&2; fail=1 ;;
		*": done") echo "FAIL: $what: $line" >&2; fail=1 ;;
		esac
	done
	if echo "$out" | grep -q '^vkernel-test: pidfd_send_signal'; then
		echo "FAIL: $what: a pidfd of host process $victim" >&2
		fail=1
	fi
	if ! kill -0 $victim 2>/dev/null; then
		echo "FAIL: $what: the host process $victim was killed" >&2
		fail=1
	fi
	kill $victim 2>/dev/null
	wait $victim 2>/dev/null
	if [ "$(ls -A "$tmp/host")" != victim ]; then
		echo "FAIL: $what: the host directory holds:" \
		    "$(ls -A "$tmp/host")" >&2
		fail=1
	fi
	if [ "$(stat -c %u "$tmp/host/victim" 2>/dev/null)" != \
	    "$(stat -c %u "$tmp/host")" ]; then
		echo "FAIL: $what: the victim file changed owner" >&2
		fail=1
	fi
	rm -rf "$tmp/host" && mkdir "$tmp/host" && touch "$tmp/host/victim" &&
	    chmod -R a+rwX "$tmp/host"
}

if [ "$(id -u)" = 0 ]; then
	takeover ""
	takeover "$asuser"
else
	takeover ""
fi
[ $fail = 0 ] && echo "ok: a taken-over vkernel reaches no host object"
exit $fail
