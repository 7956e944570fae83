#!/bin/sh
# Runs one stress-ng stressor with --verify inside vkernel and requires
# that it passes: exit status 0, "successful run completed", at least the
# bogo operations asked for done, and no "fail:" line nor a stressor that
# skipped itself or was killed (which would pass without testing anything).
#
# usage: stress.sh VKERNEL STRESS_NG STRESSOR [OPS [unpriv]]
#   OPS      bogo operations to run (default 50)
#   unpriv   vkernel run as an unprivileged host user (asuser.sh)
#
# Exits 0 if the stressor passes, 1 if not (its output on stderr), 77
# (meson's "skipped") if that user cannot run the programs or if the
# stressor skips itself natively too, with the same words (this host
# lacks what it needs: stress-ng's l1cache finds no cache sizes on an AMD
# host without /sys/devices/system/cpu/cpu0/cache), 2 on a usage error.

set -u

if [ $# -lt 3 ] || [ $# -gt 5 ]; then
	echo "usage: stress.sh VKERNEL STRESS_NG STRESSOR [OPS [unpriv]]" >&2
	exit 2
fi
vkernel=$1
stressng=$2
name=$3
ops=${4:-50}
mode=${5:-}

run=
case $mode in
'') ;;
unpriv)
	run="$(dirname "$0")/asuser.sh"
	if ! $run test -x "$vkernel" -a -x "$stressng" 2>/dev/null; then
		echo "skip: stress $name: $($run id -un) cannot run $vkernel"
		exit 77
	fi
	;;
*)	echo "stress.sh: no mode $mode" >&2; exit 2 ;;
esac

out=$(mktemp /tmp/vk-stress.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
chmod 644 "$out"

# The guest's /tmp is the overlay's: its files never reach the host.
$run "$vkernel" run -- "$stressng" --"$name" 1 --"$name"-ops "$ops" \
    --verify --timeout 30s --metrics-brief --temp-path /tmp >"$out" 2>&1
status=$?

why=$(grep -i 'skipping stressor' "$out" | sed 's/.*skipping/skipping/')
if [ -n "$why" ] && $run "$stressng" --"$name" 1 --"$name"-ops "$ops" \
    --timeout 30s --temp-path /tmp 2>&1 | grep -qF "$why"; then
	echo "skip: stress $name: natively too: $why"
	exit 77
fi

failed=0
fail()
{
	echo "FAIL: stress $name${mode:+ ($mode)}: $*" >&2
	failed=1
}

[ $status -eq 0 ] || fail "exit status $status"
grep -q 'successful run completed' "$out" || fail "no successful run"
grep -q 'fail:' "$out" && fail "a verification failed"
grep -Eqi 'skipp|aborted early|not implemented|terminated' "$out" &&
	fail "the stressor did not run through"
# The metrics line: "<name> <bogo ops> <real time> ...", the count in
# parentheses when stress-ng doubts its timing.  A stressor may overshoot.
# stress-ng 0.15's hrtimers stops short of its bound natively too (10 to
# 48 of 50 seen), so there at least one operation must have been done.
want=$ops
[ "$name" = hrtimers ] && want=1
done_ops=$(awk -v n="$name" '$4 == n { gsub(/[()]/, "", $5); print $5; exit }' "$out")
[ "${done_ops:-0}" -ge "$want" ] 2>/dev/null ||
	fail "bogo ops ${done_ops:-none}, want $want"
if [ $failed -ne 0 ]; then
	echo "--- stress-ng's output ---" >&2
	cat "$out" >&2
	exit 1
fi
echo "ok: stress $name${mode:+ ($mode)}: $ops bogo ops verified"
exit 0
