#!/bin/sh
# Proves the lock-down holds: with the test hook on, the locked-down
# vkernel makes a host call the policy does not allow, and must die of
# SIGSYS before the guest runs (the guest would print "hello").
# Usage: lockdown.sh VKERNEL GUEST
vk=$1
guest=$2
# 1: socket; kill, which pidfd_send_signal replaced; the rest: ptrace
# requests that would take a host process (only those on stubs already
# traced are allowed; a sanitizer build's leak checker needs them all, and
# its runtime kill).
# inet: the host socket --net=host makes, without the option.  With it,
# the sockets it never makes: AF_UNIX (1), raw, packet, and a blocking
# TCP one; while its own TCP socket is allowed.
calls="1 inet kill attach seize traceme"
"$vk" policy | grep -q 'leak checker' && calls="1 inet"
forbidden() {
	out=$(VKERNEL_TEST_FORBIDDEN=$1 "$vk" run $2 -- "$guest" 2>/dev/null)
	st=$?
	if [ "$st" -ne 159 ]; then
		echo "FAIL: $1 $2: want exit 159 (killed by SIGSYS), got $st" >&2
		exit 1
	fi
	if [ -n "$out" ]; then
		echo "FAIL: $1 $2: the guest ran: $out" >&2
		exit 1
	fi
}
for call in $calls; do
	forbidden $call
done
for call in 1 raw packet blocking; do
	forbidden $call --net=host
done
out=$(VKERNEL_TEST_FORBIDDEN=inet "$vk" run --net=host -- "$guest" 2>/dev/null)
if [ "$?" -ne 0 ] || [ "$out" != "hello from guest" ]; then
	echo "FAIL: --net=host: its own TCP socket is refused" >&2
	exit 1
fi
# A panic once locked down ends vkernel by SIGABRT, as pid 1 of its pid
# namespace too (where its own SIGABRT does nothing), and without one
# (where tgkill, pinned to its own pid, sends it).
for as in "" "$(cd "$(dirname "$0")/integration" && pwd)/asuser.sh"; do
	[ -z "$as" ] || [ "$(id -u)" = 0 ] || continue
	for ns in auto off; do
		VKERNEL_TEST_FORBIDDEN=panic $as "$vk" run --userns=$ns -- \
		    "$guest" >/dev/null 2>&1
		st=$?
		if [ "$st" -ne 134 ]; then
			echo "FAIL: ${as:-root} --userns=$ns: panic: want" \
			    "exit 134 (SIGABRT), got $st" >&2
			exit 1
		fi
	done
done
# Without the hook the same run works: the filter allows what is needed.
out=$("$vk" run -- "$guest" 2>/dev/null)
st=$?
if [ "$st" -ne 0 ] || [ "$out" != "hello from guest" ]; then
	echo "FAIL: locked-down run: status $st, output '$out'" >&2
	exit 1
fi
# The allow-list is printed, and the forbidden call is not on it.
pol=$("$vk" policy) || { echo "FAIL: vkernel policy failed" >&2; exit 1; }
echo "$pol" | grep -q '^ptrace ' || { echo "FAIL: ptrace not listed" >&2; exit 1; }
# Sanitizer builds allow their runtime more; the checks are of the rest.
pol=$(echo "$pol" | grep -v -e 'sanitizer runtime' -e 'leak checker')
if echo "$pol" | grep '^ptrace ' | grep -qv ' arg0 == '; then
	echo "FAIL: ptrace allowed with any request" >&2
	exit 1
fi
n=$(echo "$pol" | awk '{ print $1 }' | sort -u | wc -l)
if [ "$n" -gt 47 ]; then
	echo "FAIL: $n host calls allowed, want at most 47" >&2
	exit 1
fi
# --platform=systrap adds its futex wake alone, and only with the option.
if echo "$pol" | grep -q '^futex '; then
	echo "FAIL: futex allowed without --platform=systrap" >&2
	exit 1
fi
spol=$("$vk" policy --platform=systrap | grep -v -e 'sanitizer runtime' \
    -e 'leak checker') || { echo "FAIL: vkernel policy --platform=systrap failed" >&2; exit 1; }
if [ "$(echo "$spol" | grep '^futex ')" = "" ] ||
    [ "$(echo "$spol" | awk '{ print $1 }' | sort -u | wc -l)" -gt $((n + 1)) ]; then
	echo "FAIL: --platform=systrap's policy: $(echo "$spol" | grep '^futex ')" >&2
	exit 1
fi
if echo "$pol" | grep '^tgkill ' | grep -qv " arg0 == vkernel's pid "; then
	echo "FAIL: tgkill allowed towards other processes" >&2
	exit 1
fi
if echo "$pol" | grep -q '^kill '; then
	echo "FAIL: kill is allowed" >&2
	exit 1
fi
if echo "$pol" | grep '^pidfd_send_signal ' | grep -qv ' arg1 == 0x9 '; then
	echo "FAIL: pidfd_send_signal allowed with any signal" >&2
	exit 1
fi
if echo "$pol" | grep -q '^socket '; then
	echo "FAIL: the forbidden call socket is allowed" >&2
	exit 1
fi
echo "ok: lock-down kills a forbidden host call with SIGSYS"
