#!/bin/sh
# Where the host gives no user namespace, vkernel runs without one and
# says so: in a container-like user namespace whose user.max_user_namespaces
# is 0 (its root may make no nested one), run by that root and, in one of
# uid 65534, by it, the guest runs as usual, --stats names the namespaces
# vkernel got and why not a user namespace, and --userns=required fails.
# Skips (77) where the host gives no user namespace to start from.
# Usage: nouserns.sh VKERNEL GUEST
vk=$1
# The unprivileged host user, as the other tests run it.
asuser=$(cd "$(dirname "$0")/../integration" && pwd)/asuser.sh
guest=$2
fail=0

# inside AS SCRIPT: run SCRIPT in a user namespace of AS that allows none.
inside() {
	$1 unshare -U -r sh -c \
	    'echo 0 >/proc/sys/user/max_user_namespaces && eval "$0"' "$2"
}

if ! unshare -U -r true 2>/dev/null; then
	echo "skip: no user namespaces here"
	exit 77
fi
for as in "" "$asuser"; do
	[ -z "$as" ] || [ "$(id -u)" = 0 ] || continue
	what="container of ${as:-root}"
	out=$(inside "$as" "'$vk' run --stats -- '$guest'" 2>&1)
	case $out in
	"hello from guest"*"namespaces: pid, mount (no user namespace: "*) ;;
	*)
		echo "FAIL: $what: want the guest and pid, mount: $out" >&2
		fail=1
		;;
	esac
	out=$(inside "$as" "'$vk' run --userns=required -- '$guest'" 2>&1)
	st=$?
	case $st:$out in
	1:"vkernel: --userns=required: the host gives no user namespace"*) ;;
	*)
		echo "FAIL: $what: --userns=required: status $st: $out" >&2
		fail=1
		;;
	esac
done
out=$("$vk" run --stats -- "$guest" 2>&1)
case $out in
*"namespaces: user, pid, mount"*) ;;
*)
	echo "FAIL: on the host: want user, pid, mount: $out" >&2
	fail=1
	;;
esac
out=$("$vk" run --stats --userns=off -- "$guest" 2>&1)
case $out in
*"namespaces: the host's (--userns=off)"*) ;;
*)
	echo "FAIL: --userns=off: $out" >&2
	fail=1
	;;
esac
"$vk" run --userns=bogus -- "$guest" 2>/dev/null
if [ $? -ne 2 ]; then
	echo "FAIL: --userns=bogus is not a usage error" >&2
	fail=1
fi
[ $fail = 0 ] && echo "ok: without user namespaces vkernel falls back and says so"
exit $fail
