#!/bin/sh
# Proves the lock-down holds: with the test hook on, the locked-down
# vkernel makes a host call the policy does not allow, and must die of
# SIGSYS before the guest runs (the guest would print "hello").
# Usage: lockdown.sh VKERNEL GUEST
vk=$1
guest=$2
out=$(VKERNEL_TEST_FORBIDDEN=1 "$vk" run -- "$guest" 2>/dev/null)
st=$?
if [ "$st" -ne 159 ]; then
	echo "FAIL: want exit 159 (killed by SIGSYS), got $st" >&2
	exit 1
fi
if [ -n "$out" ]; then
	echo "FAIL: the guest ran: $out" >&2
	exit 1
fi
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
if echo "$pol" | grep -q '^socket '; then
	echo "FAIL: the forbidden call socket is allowed" >&2
	exit 1
fi
echo "ok: lock-down kills a forbidden host call with SIGSYS"
